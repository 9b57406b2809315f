import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Creem } from 'creem';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/browser.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { makeProduct, makeRecurringProduct } from '../support/factories.js';
import { startTestService, type TestService } from '../support/service.js';

describe.skipIf(!haveChromium)('hosted checkout in headless Chromium', () => {
  let service: TestService;
  let client: Creem;
  let key: string;
  /** The store's core context, for the factories. */
  let shop: RequestContext;
  let browser: Browser;
  let seller: Server;
  let sellerUrl: string;
  const sellerHits: URL[] = [];

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    key = store.test_api_key;
    client = new Creem({ apiKey: key, serverURL: service.testUrl });
    shop = service.contextOf(store);
    // The seller's success page: records where the buyer was sent.
    seller = createServer((req, res) => {
      const url = new URL(req.url!, 'http://seller');
      if (url.pathname === '/thanks') sellerHits.push(url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Thanks for your purchase</h1>');
    });
    await new Promise<void>((r) => seller.listen(0, '127.0.0.1', r));
    sellerUrl = `http://127.0.0.1:${(seller.address() as AddressInfo).port}/thanks`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    seller?.close();
    await service?.close();
  });

  /** Fills the form; answers the quote the page fetched for the chosen country. */
  async function fillBuyer(page: Page, opts: { email: string; country?: string; card?: string }): Promise<Record<string, unknown>> {
    // Country first: the page refreshes the total for it before the buyer pays.
    const quote = page.waitForResponse((r) => r.url().includes('/quote'));
    await page.selectOption('#country', opts.country ?? 'US');
    const answer = (await (await quote).json()) as Record<string, unknown>;
    await page.fill('#email', opts.email);
    await page.fill('#name', 'Grace Buyer');
    await fillCard(page, opts.card ?? '4242 4242 4242 4242');
    return answer;
  }

  async function fillCard(page: Page, card: string) {
    await page.fill('#card_number', card);
    await page.fill('#card_expiry', '12/34');
    await page.fill('#card_cvc', '123');
  }

  it('one-time product with custom fields and German VAT: pays and lands on the seller page with signed ids', async () => {
    const product = await makeProduct(shop, {
      name: 'Icon pack',
      description: '500 icons',
      price: 2000,
      currency: 'EUR',
      billing_type: 'onetime',
      tax_mode: 'exclusive',
      custom_fields: [
        { type: 'text', key: 'company', label: 'Company', text: { max_length: 40, min_length: 2 } },
        { type: 'checkbox', key: 'terms', label: 'Terms', checkbox: { label: 'I accept the [terms](https://seller.example/terms)' } },
      ],
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 2 } }],
    });
    const checkout = await client.checkouts.create({ productId: product.id, successUrl: sellerUrl, requestId: 'browser-1' });
    const page = await browser.newPage();
    await page.goto(checkout.checkoutUrl!);
    await expect.poll(() => page.textContent('#product-name')).toBe('Icon pack');
    await expect.poll(() => page.getAttribute('a[href="https://seller.example/terms"]', 'target')).toBe('_blank');
    const quote = await fillBuyer(page, { email: 'grace@example.com', country: 'DE' });
    // The quote endpoint answers the amount due as a decimal string of minor units.
    expect(quote).toMatchObject({ amount_due: '2380', total: '€23.80' });
    await expect.poll(() => page.textContent('#total')).toBe('€23.80');
    await page.fill('#cf_company', 'Hopper Ltd');
    await page.check('#cf_terms');
    await Promise.all([page.waitForURL(/127\.0\.0\.1:\d+\/thanks/), page.click('#pay')]);
    expect(await page.textContent('h1')).toBe('Thanks for your purchase');
    const landed = sellerHits.at(-1)!;
    expect(landed.searchParams.get('checkout_id')).toBe(checkout.id);
    expect(landed.searchParams.get('request_id')).toBe('browser-1');
    expect(landed.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    await page.close();

    const done = await client.checkouts.retrieve(checkout.id);
    expect(done.status).toBe('completed');
    expect(done.order).toMatchObject({ subTotal: 2000, taxAmount: 380, amountPaid: 2380 });
    expect(done.customFields?.find((f) => f.key === 'company')?.text?.value).toBe('Hopper Ltd');
    expect(done.customFields?.find((f) => f.key === 'terms')?.checkbox?.value).toBe(true);
    expect(done.licenseKeys).toHaveLength(1);
    const orders = await client.customers.getOrders(landed.searchParams.get('customer_id')!);
    expect(orders.items.map((o) => o.id)).toEqual([done.order!.id]);
  }, 60_000);

  it('subscription with a trial: starts the trial and shows the receipt', async () => {
    const product = await makeRecurringProduct(shop, { name: 'Cloud sync', description: 'Sync', price: 900, currency: 'USD', billing_period: 'every-month', trial_period_days: 7 });
    const checkout = await client.checkouts.create({ productId: product.id });
    const page = await browser.newPage();
    await page.goto(checkout.checkoutUrl!);
    expect(await page.textContent('#pay')).toBe('Start trial');
    await fillBuyer(page, { email: 'trial@example.com' });
    await Promise.all([page.waitForURL(/\/receipt\?/), page.click('#pay')]);
    expect(await page.textContent('#subscription-status')).toBe('trialing');
    const subscriptionId = new URL(page.url()).searchParams.get('subscription_id')!;
    await page.close();
    const sub = await client.subscriptions.get(subscriptionId);
    expect(sub).toMatchObject({ status: 'trialing' });
    expect(typeof sub.product === 'object' && sub.product.id).toBe(product.id);
  }, 60_000);

  it('a declined card shows the reason, keeps the checkout open, and a good card then pays', async () => {
    const product = await makeProduct(shop, { name: 'Font', description: 'Serif', price: 4500, currency: 'EUR' });
    const checkout = await client.checkouts.create({ productId: product.id });
    const page = await browser.newPage();
    await page.goto(checkout.checkoutUrl!);
    await fillBuyer(page, { email: 'declined@example.com', card: '4000 0000 0000 0002' });
    await Promise.all([page.waitForLoadState('load'), page.click('#pay')]);
    await expect.poll(() => page.textContent('#error')).toContain('Your card was declined');
    expect(await page.inputValue('#email')).toBe('declined@example.com');
    expect(await page.inputValue('#card_number')).toBe('');
    expect((await client.checkouts.retrieve(checkout.id)).status).toBe('pending');
    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(/\/receipt\?/), page.click('#pay')]);
    await page.close();
    const txns = await client.transactions.search(undefined, undefined, product.id);
    // Newest first; the declined attempt is part of the history, as a seller expects to see it.
    expect(txns.result.items.map((t) => t.status)).toEqual(['paid', 'declined']);
    const all = await service.db.prisma.transaction.findMany({ where: { checkoutId: checkout.id }, orderBy: { id: 'asc' } });
    expect(all.map((t) => t.status)).toEqual(['declined', 'paid']);
  }, 60_000);

  it('a discount code lowers the total shown and charged', async () => {
    const product = await makeProduct(shop, { name: 'Course', description: 'Video', price: 10000, currency: 'EUR' });
    await client.discounts.create({ name: 'Spring', code: 'SPRING25', type: 'percentage', percentage: 25, duration: 'once', appliesToProducts: [product.id] });
    const checkout = await client.checkouts.create({ productId: product.id, discountCode: 'spring25' });
    const page = await browser.newPage();
    await page.goto(checkout.checkoutUrl!);
    expect(await page.textContent('#discount')).toContain('€25.00');
    await fillBuyer(page, { email: 'discount@example.com' });
    // The summary the script refreshed for the chosen country is complete.
    expect(await page.textContent('#sub-total')).toBe('€100.00');
    expect(await page.textContent('#discount')).toBe('−€25.00');
    expect(await page.textContent('#total')).toBe('€75.00');
    await Promise.all([page.waitForURL(/\/receipt\?/), page.click('#pay')]);
    expect(await page.textContent('#paid')).toBe('€75.00');
    await page.close();
    const done = await client.checkouts.retrieve(checkout.id);
    expect(done.discount).toMatchObject({ discountCode: 'SPRING25', type: 'percentage', amount: 25 });
    expect(done.order).toMatchObject({ discountAmount: 2500, amountPaid: 7500 });
    expect((await client.discounts.get(undefined, 'SPRING25')).redeemCount).toBe(1);
  }, 60_000);
});
