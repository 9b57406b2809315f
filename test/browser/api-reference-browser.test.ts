import type { Browser } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

describe.skipIf(!haveChromium)('the API reference page in headless Chromium', () => {
  let service: TestService;
  let browser: Browser;

  beforeAll(async () => {
    service = await startTestService();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('renders every resource of the document, an operation opens with its parameters and response schema, nothing is blocked', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('requestfailed', (r) => problems.push(`${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
    await page.goto(`${service.testUrl}/docs`);
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['products', 'checkouts', 'subscriptions', 'customer-credits', 'webhooks']));
    // Open GET /v1/products/{id}.
    const op = page.locator('.opblock-get', { hasText: '/v1/products/{id}' }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('.parameters').waitFor();
    expect(await op.locator('.parameters').innerText()).toContain('id');
    expect(await op.locator('.responses-wrapper').innerText()).toContain('200');
    expect(problems).toEqual([]);
  }, 60_000);
});
