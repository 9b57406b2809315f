import type { Browser } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/** An e-mail invitee answers a split invitation on its signed page, in headless Chromium. */
describe.skipIf(!haveChromium)('split invitations in headless Chromium', () => {
  let service: TestService;
  let browser: Browser;
  let call: ReturnType<typeof api>;
  let storeId: string;
  let ownKey: string;
  let ctx: ReturnType<TestService['contextOf']>;

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Inviting store');
    storeId = store.id;
    ownKey = store.test_api_key;
    ctx = service.contextOf(store);
    call = api(service.testUrl, store.test_api_key);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  const invite = async (email: string, amount: number) => {
    const res = await call('POST', '/v1/splits', { type: 'store', type_reference: storeId, recipients: [{ recipient_type: 'email', recipient_reference: email, amount }] });
    expect(res.status, res.text).toBe(200);
    expect(res.json.enabled).toBe(false);
    return { id: res.json.id as string, url: res.json.recipients[0].invite_url as string };
  };

  it('accepts with a new store: the split turns on and the next payment allocates to that store', async () => {
    const { id, url } = await invite('founder@example.com', 25);
    expect(url).toMatch(/\/split-invitations\/splr_[0-9A-Z]{26}\?expires=\d+&signature=/);
    const page = await browser.newPage();
    await page.goto(url);
    expect(await page.textContent('#terms')).toContain('25 %');
    await page.fill('#store_name', 'Invitee Co');
    await Promise.all([page.waitForURL(/\/accept\?/), page.click('#accept')]);
    expect(await page.textContent('h1')).toBe('Invitation accepted');
    const text = (await page.textContent('main'))!;
    const newStore = /(sto_[0-9A-Z]{26})/.exec(text)![1]!;
    expect(text).toMatch(/test sk_test_\S+/);
    await page.close();

    const split = (await call('GET', `/v1/splits/${id}`)).json;
    expect(split.enabled).toBe(true);
    expect(split.recipients).toEqual([{ type: 'percentage', recipient_type: 'store', recipient_reference: newStore, amount: 25, enabled: true }]);
    const paid = await makePaidCheckout(ctx, (await makeProduct(ctx, { price: 1_000, tax_mode: 'inclusive' })).id);
    const allocations = await service.db.prisma.splitAllocation.findMany({ where: { transactionId: paid.order!.transactionId! } });
    expect(allocations.map((a) => [a.recipientStoreId, a.amount])).toEqual([[newStore, 250n]]);
    // The link is spent: a second visit says so.
    const again = await browser.newPage();
    await again.goto(url);
    expect(await again.textContent('h1')).toBe('Already answered');
    await again.close();
  });

  it('declines: the invitee stays out and the split stays off; a tampered link opens nothing', async () => {
    const { id, url } = await invite('nope@example.com', 10);
    const page = await browser.newPage();
    await page.goto(url.replace(/signature=[^&]+/, 'signature=forged'));
    expect(await page.textContent('h1')).toBe('Link expired');
    await page.goto(url);
    await Promise.all([page.waitForURL(/\/decline\?/), page.click('#decline button')]);
    expect(await page.textContent('h1')).toBe('Invitation declined');
    await page.close();
    const split = (await call('GET', `/v1/splits/${id}`)).json;
    expect(split.enabled).toBe(false);
    expect(split.recipients[0]).toMatchObject({ recipient_type: 'email', invite_status: 'declined', enabled: false });
    expect(split.recipients[0].invite_url).toBeUndefined();
  });

  it("accepts for a store the invitee already has, by one of its keys; the inviting store's own key is refused", async () => {
    const existing = await service.createStore('Existing partner');
    const { id, url } = await invite('partner@example.com', 15);
    const page = await browser.newPage();
    await page.goto(url);
    await page.fill('#api_key', (await service.createStore('Unused')).prod_api_key);
    await Promise.all([page.waitForURL(/\/accept\?/), page.click('#accept-existing button')]);
    // A production key on the test environment's page names no store here.
    expect(await page.textContent('h1')).toBe('Not accepted');
    await page.goto(url);
    await page.fill('#api_key', ownKey);
    await Promise.all([page.waitForURL(/\/accept\?/), page.click('#accept-existing button')]);
    expect(await page.textContent('main')).toContain('belongs to the store that sent the invitation');
    await page.goto(url);
    await page.fill('#api_key', existing.test_api_key);
    await Promise.all([page.waitForURL(/\/accept\?/), page.click('#accept-existing button')]);
    expect(await page.textContent('h1')).toBe('Invitation accepted');
    await page.close();
    const split = (await call('GET', `/v1/splits/${id}`)).json;
    expect([split.enabled, split.recipients[0].recipient_type, split.recipients[0].recipient_reference]).toEqual([true, 'store', existing.id]);
  });
});
