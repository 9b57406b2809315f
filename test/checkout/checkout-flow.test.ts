import { createHmac, createHash } from 'node:crypto';
import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { BUYER, CheckoutBrowser, TEST_CARDS } from '../support/checkout-page.js';
import { makeProduct } from '../support/factories.js';

let service: TestService;
let client: Creem;
let key: string;
let prodKey: string;
let rest: ReturnType<typeof api>;
/** The store's core context in each environment, for the factories. */
let seller: RequestContext;
let prodSeller: RequestContext;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Acme');
  key = store.test_api_key;
  prodKey = store.prod_api_key;
  client = new Creem({ apiKey: key, serverURL: service.testUrl });
  rest = api(service.testUrl, key);
  seller = service.contextOf(store, 'test');
  prodSeller = service.contextOf(store, 'prod');
});
afterAll(() => service?.close());

/** A product of the store (in /v1 field names): a one-time 15.00 EUR e-book unless `overrides` say otherwise. */
const product = (overrides: Record<string, unknown> = {}) => makeProduct(seller, { name: 'E-book', description: 'A book', price: 1500, currency: 'EUR', billing_type: 'onetime', ...overrides });

/** Types of the events whose payload is one of these resources, in the order they were recorded. */
async function eventsOf(...ids: string[]) {
  const events = await service.db.prisma.event.findMany({ orderBy: { id: 'asc' } });
  return events.filter((e) => ids.includes((e.payload as { id: string }).id)).map((e) => e.type);
}

/** What a seller does on its success page: recompute the signature with its API key. */
function verifySignature(location: string, apiKey: string): boolean {
  const url = new URL(location);
  const payload = ['checkout_id', 'order_id', 'customer_id', 'subscription_id', 'product_id', 'request_id']
    .filter((k) => url.searchParams.has(k))
    .map((k) => `${k}=${url.searchParams.get(k)}`)
    .join('|');
  const keyHash = createHash('sha256').update(apiKey).digest('hex');
  return createHmac('sha256', keyHash).update(payload).digest('hex') === url.searchParams.get('signature');
}

describe('one-time purchase', () => {
  it('creates customer, order, payment transaction, license key and checkout.completed in one go', async () => {
    const p = await product({
      name: 'App',
      description: 'Desktop app',
      tax_mode: 'exclusive',
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 3, expires_in_days: 365 } }],
    });
    const checkout = await client.checkouts.create({ productId: p.id, requestId: 'req-42', units: 2, successUrl: 'https://seller.example/thanks?from=checkout', metadata: { cart: 'c1' } });
    expect(checkout).toMatchObject({ status: 'pending', units: 2, requestId: 'req-42', mode: 'test' });
    expect(checkout.checkoutUrl).toBe(`${service.testUrl}/checkout/${checkout.id}`);

    const browser = new CheckoutBrowser(service.testUrl);
    const paid = await browser.pay(checkout.checkoutUrl!, { ...BUYER, email: 'Ada@Example.com', country: 'DE' });
    expect(paid.status).toBe(303);
    const location = new URL(paid.location!);
    expect(location.origin + location.pathname).toBe('https://seller.example/thanks');
    expect(location.searchParams.get('from')).toBe('checkout');
    expect(location.searchParams.get('checkout_id')).toBe(checkout.id);
    expect(location.searchParams.get('request_id')).toBe('req-42');
    expect(location.searchParams.get('product_id')).toBe(p.id);
    expect(verifySignature(paid.location!, key)).toBe(true);
    expect(verifySignature(paid.location!, prodKey)).toBe(false);
    const tampered = paid.location!.replace(/order_id=[^&]+/, 'order_id=ord_forged');
    expect(verifySignature(tampered, key)).toBe(false);

    const done = await client.checkouts.retrieve(checkout.id);
    expect(done.status).toBe('completed');
    expect(done.customer).toMatchObject({ email: 'ada@example.com', name: 'Ada Buyer', country: 'DE' });
    // 2 × 15.00, 19% German VAT added on top.
    expect(done.order).toMatchObject({ status: 'paid', type: 'onetime', subTotal: 3000, discountAmount: 0, taxAmount: 570, amountDue: 3570, amountPaid: 3570, amount: 3570, currency: 'EUR' });
    expect(location.searchParams.get('order_id')).toBe(done.order!.id);
    expect(done.licenseKeys).toHaveLength(1);
    expect(done.licenseKeys![0]).toMatchObject({ activationLimit: 3, productId: p.id });
    expect(done.licenseKeys![0]!.expiresAt).toBeInstanceOf(Date);

    const txn = await client.transactions.getById(done.order!.transaction!);
    expect(txn).toMatchObject({ type: 'payment', status: 'paid', amount: 3570, amountPaid: 3570, taxAmount: 570, taxCountry: 'DE', order: done.order!.id });
    expect(await eventsOf(checkout.id)).toEqual(['checkout.completed']);
    const event = await service.db.prisma.event.findFirstOrThrow({ where: { type: 'checkout.completed', payload: { path: ['id'], equals: checkout.id } } });
    expect(event.payload).toMatchObject({ id: checkout.id, status: 'completed', order: { id: done.order!.id }, metadata: { cart: 'c1' } });

    // The page of a paid checkout does not take a second payment.
    const again = await browser.get(checkout.checkoutUrl!);
    expect(again.html).toContain('Already paid');
    expect(again.html).not.toContain('card_number');
    expect(await service.db.prisma.transaction.count({ where: { checkoutId: checkout.id } })).toBe(1);
  });

  it('inclusive prices keep the total; reverse charge and business_net_pricing apply to business buyers with a tax id', async () => {
    const p = await product({ price: 1190, tax_mode: 'inclusive', business_net_pricing: true });
    const consumer = await client.checkouts.create({ productId: p.id });
    expect((await new CheckoutBrowser(service.testUrl).pay(consumer.checkoutUrl!, { ...BUYER, email: 'c@example.com', country: 'DE' })).status).toBe(303);
    expect((await client.checkouts.retrieve(consumer.id)).order).toMatchObject({ amountDue: 1190, taxAmount: 190 });

    const business = await client.checkouts.create({ productId: p.id });
    // Without the page's script the form still carries the total shown for a consumer; the
    // server recomputes for a business and asks again instead of charging a different amount.
    const browser = new CheckoutBrowser(service.testUrl);
    const shown = await browser.get(business.checkoutUrl!);
    const page = await browser.submit(business.checkoutUrl!, shown.html, { ...BUYER, email: 'b@example.com', country: 'DE', tax_id: 'DE 123 456 789' });
    expect(page.status).toBe(409);
    expect(page.html).toContain('nothing was charged');
    expect(page.html).toContain('value="1000"');
    const retry = await browser.submit(business.checkoutUrl!, page.html, { ...BUYER, email: 'b@example.com', country: 'DE', tax_id: 'DE 123 456 789' });
    expect(retry.status).toBe(303);
    expect((await client.checkouts.retrieve(business.id)).order).toMatchObject({ amountDue: 1000, taxAmount: 0 });
  });
});

describe('subscriptions', () => {
  it('a monthly plan starts active with an invoice for the first period and three events', async () => {
    const p = await product({ name: 'Pro', price: 2900, billing_type: 'recurring', billing_period: 'every-month', tax_mode: 'inclusive' });
    const checkout = await client.checkouts.create({ productId: p.id });
    const paid = await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl!, { ...BUYER, email: 'sub@example.com' });
    expect(paid.status).toBe(303);
    const subId = new URL(paid.location!).searchParams.get('subscription_id')!;
    const sub = await client.subscriptions.get(subId);
    expect(sub).toMatchObject({ status: 'active', collectionMethod: 'charge_automatically' });
    const start = sub.currentPeriodStartDate!;
    const end = sub.currentPeriodEndDate!;
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    expect(sub.lastTransaction).toMatchObject({ type: 'invoice', status: 'paid', amount: 2900, periodStart: start.getTime(), periodEnd: end.getTime() });
    expect(sub.nextTransactionDate?.getTime()).toBe(end.getTime());
    const done = await client.checkouts.retrieve(checkout.id);
    expect(typeof done.subscription === 'object' && done.subscription.id).toBe(subId);
    expect(done.order).toMatchObject({ type: 'recurring' });
    expect(await eventsOf(checkout.id, subId)).toEqual(['checkout.completed', 'subscription.active', 'subscription.paid']);
  });

  it('a plan with trial days starts trialing and charges nothing today', async () => {
    const p = await product({ name: 'Team', price: 4900, billing_type: 'recurring', billing_period: 'every-year', trial_period_days: 14 });
    const checkout = await client.checkouts.create({ productId: p.id });
    const page = await new CheckoutBrowser(service.testUrl).get(checkout.checkoutUrl!);
    expect(page.html).toContain('14-day trial');
    const paid = await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl!, { ...BUYER, email: 'trial@example.com' });
    expect(paid.status).toBe(303);
    const sub = await client.subscriptions.get(new URL(paid.location!).searchParams.get('subscription_id')!);
    expect(sub.status).toBe('trialing');
    expect(await eventsOf(checkout.id, sub.id)).toEqual(['checkout.completed', 'subscription.trialing']);
    expect(sub.currentPeriodEndDate!.getTime() - sub.currentPeriodStartDate!.getTime()).toBe(14 * 86_400_000);
    expect(sub.lastTransaction).toMatchObject({ amount: 0, status: 'paid', type: 'invoice' });
  });
});

describe('test cards', () => {
  it.each([
    [TEST_CARDS.declined, 'card_declined', 'Your card was declined'],
    [TEST_CARDS.insufficientFunds, 'insufficient_funds', 'insufficient funds'],
    [TEST_CARDS.incorrectCvc, 'incorrect_cvc', 'security code is incorrect'],
  ])('%s is refused with a clear message, recorded as declined, and the checkout stays open', async (card, code, message) => {
    const p = await product();
    const checkout = await client.checkouts.create({ productId: p.id });
    const browser = new CheckoutBrowser(service.testUrl);
    const declined = await browser.pay(checkout.checkoutUrl!, { ...BUYER, card_number: card });
    expect(declined.status).toBe(402);
    expect(declined.html).toContain(message);
    expect(declined.html).toContain('value="Ada Buyer"'); // what the buyer typed is kept, the card is not
    expect(declined.html).not.toContain(card);
    const txns = await service.db.prisma.transaction.findMany({ where: { checkoutId: checkout.id } });
    expect(txns).toMatchObject([{ status: 'declined', declineCode: code, amount: 1500n }]);
    expect((await client.checkouts.retrieve(checkout.id)).status).toBe('pending');

    const retry = await browser.submit(checkout.checkoutUrl!, declined.html, BUYER);
    expect(retry.status).toBe(303);
    expect((await client.checkouts.retrieve(checkout.id)).status).toBe('completed');
  });

  it('an invalid card number or missing field is a 400 naming the field, and nothing is recorded', async () => {
    const p = await product();
    const checkout = await client.checkouts.create({ productId: p.id });
    const res = await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl!, { ...BUYER, card_number: '4242 4242 4242 4241', name: '' });
    expect(res.status).toBe(400);
    expect(res.html).toContain('Card number: is not a valid card number');
    expect(res.html).toContain('Full name: is required');
    expect(await service.db.prisma.transaction.count({ where: { checkoutId: checkout.id } })).toBe(0);
  });
});

describe('checkout creation rules', () => {
  it('answers 400 naming the field for archived products, units below 1, a low custom price, unknown discount codes', async () => {
    const archived = await product();
    await client.products.archive(archived.id);
    const pwyw = await product({ price: 500, pay_what_you_want: true });
    const cases: [Record<string, unknown>, string][] = [
      [{ product_id: archived.id }, 'product_id'],
      [{ product_id: pwyw.id, units: 0 }, 'units'],
      [{ product_id: pwyw.id, custom_price: 400 }, 'custom_price'],
      [{ product_id: pwyw.id, discount_code: 'NOPE' }, 'discount_code'],
      [{ product_id: 'prod_missing' }, 'product_id'],
      [{ product_id: pwyw.id, affiliate_code: 'friend' }, 'affiliate_code'],
    ];
    const before = await service.db.prisma.checkout.count();
    for (const [body, field] of cases) {
      const res = await rest('POST', '/v1/checkouts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message.join(' ')).toContain(field);
    }
    expect(await service.db.prisma.checkout.count()).toBe(before);
    expect((await rest('POST', '/v1/checkouts', { product_id: pwyw.id, custom_price: 700 })).status).toBe(200);
  });

  it("another store's checkout is a 404, and product_url opens a fresh checkout", async () => {
    const p = await product();
    const checkout = await client.checkouts.create({ productId: p.id });
    const other = await service.createStore('Other');
    expect((await api(service.testUrl, other.test_api_key)('GET', `/v1/checkouts?checkout_id=${checkout.id}`)).status).toBe(404);
    const { productUrl } = await client.products.get(p.id);
    const opened = await new CheckoutBrowser(service.testUrl).get(productUrl!);
    expect(opened.status).toBe(303);
    expect(opened.location).toMatch(/^\/checkout\/ch_/);
  });

  it('a production checkout without a payment processor fails clearly instead of pretending to charge', async () => {
    const prod = api(service.prodUrl, prodKey);
    const p = await makeProduct(prodSeller, { name: 'Real', description: 'x', price: 1000, currency: 'EUR', billing_type: 'onetime', billing_period: 'once' });
    const res = await prod('POST', '/v1/checkouts', { product_id: p.id });
    expect(res.status).toBe(503);
    expect(res.json.code).toBe('processor_unavailable');
    expect(res.json.message.join(' ')).toMatch(/No payment processor is configured/);
  });
});

describe('page safety', () => {
  it('escapes seller- and buyer-provided text', async () => {
    const p = await product({
      name: '<script>alert(1)</script>Book',
      custom_fields: [
        { type: 'checkbox', key: 'terms', label: 'Terms', checkbox: { label: 'I accept the [terms](https://seller.example/terms) <img src=x onerror=alert(1)>' } },
        { type: 'text', key: 'company', label: '"><b>Company</b>', optional: true },
      ],
    });
    const checkout = await client.checkouts.create({ productId: p.id, metadata: { note: '<script>x</script>' } });
    const page = await new CheckoutBrowser(service.testUrl).get(checkout.checkoutUrl!);
    expect(page.html).not.toContain('<script>alert(1)</script>');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;Book');
    expect(page.html).toContain('<a href="https://seller.example/terms" target="_blank" rel="noopener noreferrer">terms</a>');
    expect(page.html).not.toContain('<img src=x');
    expect(page.html).not.toContain('"><b>Company</b>');
  });

  it('refuses a form posted from another site or without the token, and charges nothing', async () => {
    const p = await product();
    const checkout = await client.checkouts.create({ productId: p.id });
    const body = new URLSearchParams({ ...BUYER, csrf: 'forged' });
    const forged = await fetch(checkout.checkoutUrl!, { method: 'POST', body, redirect: 'manual' });
    expect(forged.status).toBe(403);
    const browser = new CheckoutBrowser(service.testUrl);
    const page = await browser.get(checkout.checkoutUrl!);
    const crossSite = await fetch(checkout.checkoutUrl!, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ ...BUYER, csrf: CheckoutBrowser.hidden(page.html, 'csrf') }),
    });
    expect(crossSite.status).toBe(403);
    expect(await service.db.prisma.transaction.count({ where: { checkoutId: checkout.id } })).toBe(0);
  });

  it('a malformed cookie header reads as no cookie: the page opens and a post is refused, never a 500', async () => {
    const p = await product();
    const checkout = await client.checkouts.create({ productId: p.id });
    const cookie = 'checkout_csrf=%E0%A4%A; =; ;;; other="unterminated';
    const page = await fetch(checkout.checkoutUrl!, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const posted = await fetch(checkout.checkoutUrl!, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ ...BUYER, csrf: CheckoutBrowser.hidden(html, 'csrf') }),
    });
    expect(posted.status).toBe(403);
    expect(await service.db.prisma.transaction.count({ where: { checkoutId: checkout.id } })).toBe(0);
  });
});
