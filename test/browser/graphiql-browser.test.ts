import type { Browser } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PLACEHOLDER } from '../../src/graphql/example-queries.js';
import { api, startTestService, type TestService } from '../support/service.js';

describe.skipIf(!haveChromium)('GraphiQL in headless Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    service = await startTestService();
    key = (await service.createStore('GraphiQL')).test_api_key;
    const call = api(service.testUrl, key);
    expect((await call('POST', '/v1/customers', { email: 'graphiql-buyer@example.com' })).status).toBe(200);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it('opens with the key placeholder in the headers editor and the customer graph; with the key replaced, the default query answers data', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${service.testUrl}/graphql`);
    // The headers editor is open and holds the placeholder.
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor', { hasText: API_KEY_PLACEHOLDER }).first();
    await headers.waitFor({ timeout: 30_000 });
    // (The editor writes non-breaking spaces.)
    expect(await page.locator('.graphiql-query-editor').textContent()).toMatch(/query\sCustomerGraph\s\{\s*customers\(first:\s5\)/);
    // Replace the placeholder with the store's test key, as a user would: select the word, type over it.
    await headers.getByText(API_KEY_PLACEHOLDER).dblclick();
    // One insertion, as a paste is (typed key by key, the editor's completion can take a character).
    await page.keyboard.insertText(key);
    expect(await page.locator('.graphiql-editor-tool').textContent()).toContain(key);
    const answer = page.waitForResponse((r) => r.url().endsWith('/graphql') && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('CustomerGraph'));
    await page.locator('.graphiql-execute-button').click();
    const body = (await (await answer).json()) as { data?: { customers: { totalCount: number; edges: { node: { email: string } }[] } }; errors?: unknown };
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    expect(body.data!.customers.edges.map((e) => e.node.email)).toEqual(['graphiql-buyer@example.com']);
    await page.locator('.graphiql-response', { hasText: 'graphiql-buyer@example.com' }).waitFor();
    if (process.env.GRAPHIQL_SCREENSHOT) await page.screenshot({ path: process.env.GRAPHIQL_SCREENSHOT });
    expect(problems).toEqual([]);
  }, 60_000);
});
