import { Creem } from 'creem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { startTestService, type TestService } from '../support/service.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';
import { makeProduct } from '../support/factories.js';

let service: TestService;
let client: Creem;
let seller: RequestContext;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Acme');
  client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
  seller = service.contextOf(store);
});
afterAll(() => service?.close());

it('two submits of one checkout charge once, and both land on the success page', async () => {
  const p = await makeProduct(seller, { name: 'Course', description: 'x', price: 9900, currency: 'EUR' });
  const checkout = await client.checkouts.create({ productId: p.id, successUrl: 'https://seller.example/ok' });
  const browser = new CheckoutBrowser(service.testUrl);
  const page = await browser.get(checkout.checkoutUrl!);
  const [a, b] = await Promise.all([browser.submit(checkout.checkoutUrl!, page.html, BUYER), browser.submit(checkout.checkoutUrl!, page.html, BUYER)]);
  expect([a.status, b.status]).toEqual([303, 303]);
  expect(new URL(a.location!).searchParams.get('order_id')).toBe(new URL(b.location!).searchParams.get('order_id'));
  const db = service.db.prisma;
  expect(await db.transaction.count({ where: { checkoutId: checkout.id } })).toBe(1);
  expect(await db.order.count({ where: { productId: p.id } })).toBe(1);
  expect(await db.event.count({ where: { type: 'checkout.completed', payload: { path: ['id'], equals: checkout.id } } })).toBe(1);
});

it('a discount with one redemption left is used by exactly one of 10 checkouts completing at once', async () => {
  const p = await makeProduct(seller, { name: 'Plugin', description: 'x', price: 5000, currency: 'EUR' });
  await client.discounts.create({ name: 'Launch', code: 'LAUNCH', type: 'percentage', percentage: 50, duration: 'once', maxRedemptions: 1, appliesToProducts: [p.id] });
  const checkouts = await Promise.all(Array.from({ length: 10 }, () => client.checkouts.create({ productId: p.id, discountCode: 'launch' })));
  expect(checkouts.every((c) => c.discount?.discountCode === 'LAUNCH')).toBe(true);
  const results = await Promise.all(
    checkouts.map((c, i) => new CheckoutBrowser(service.testUrl).pay(c.checkoutUrl!, { ...BUYER, email: `buyer${i}@example.com` })),
  );
  const paid = results.filter((r) => r.status === 303);
  const refused = results.filter((r) => r.status === 400);
  expect(paid).toHaveLength(1);
  expect(refused).toHaveLength(9);
  expect(refused.every((r) => r.html.includes('maximum number of redemptions'))).toBe(true);
  const discount = await client.discounts.get(undefined, 'LAUNCH');
  expect(discount.redeemCount).toBe(1);
  const orders = await service.db.prisma.order.findMany({ where: { productId: p.id } });
  expect(orders).toMatchObject([{ discountAmount: 2500n, amountDue: 2500n }]);
  // The nine others stay open for a payment without the code.
  expect(await service.db.prisma.checkout.count({ where: { productId: p.id, status: 'pending' } })).toBe(9);
});

it('a declined attempt gives its discount redemption back', async () => {
  const p = await makeProduct(seller, { name: 'Theme', description: 'x', price: 2000, currency: 'EUR' });
  await client.discounts.create({ name: 'One', code: 'ONLYONE', type: 'fixed', amount: 500, currency: 'EUR', duration: 'once', maxRedemptions: 1, appliesToProducts: [] });
  const checkout = await client.checkouts.create({ productId: p.id, discountCode: 'ONLYONE' });
  const browser = new CheckoutBrowser(service.testUrl);
  const declined = await browser.pay(checkout.checkoutUrl!, { ...BUYER, card_number: '4000 0000 0000 0002' });
  expect(declined.status).toBe(402);
  expect((await client.discounts.get(undefined, 'ONLYONE')).redeemCount).toBe(0);
  const paid = await browser.submit(checkout.checkoutUrl!, declined.html, BUYER);
  expect(paid.status).toBe(303);
  expect((await client.discounts.get(undefined, 'ONLYONE')).redeemCount).toBe(1);
  expect((await client.checkouts.retrieve(checkout.id)).order).toMatchObject({ discountAmount: 500, amountDue: 1500 });
});
