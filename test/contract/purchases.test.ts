import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { newId } from '../../src/lib/ids.js';
import { createDiscountOp } from '../../src/modules/discounts/discounts.operations.js';
import { perform } from '../support/context.js';
import { makeCustomer, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Reading what was bought through the official client, which validates every answer against
 * its own models. Purchases are written by the checkout flow; here the rows are inserted as it
 * writes them (with renewals and dates in the past, which no checkout writes), so these tests
 * depend only on the read side. Direct inserts name the tenant (storeId, mode) themselves.
 */

interface Seeded {
  subscriptionId: string;
  orderId: string;
  /** Oldest first. */
  transactionIds: string[];
}

async function seedSubscription(
  db: PrismaClient,
  storeId: string,
  customerId: string,
  productId: string,
  opts: { price: number; discountId?: string; start: Date },
): Promise<Seeded> {
  const mode = 'test' as const;
  const price = BigInt(opts.price);
  const subscriptionId = newId('subscription');
  const orderId = newId('order');
  const first = newId('transaction');
  const second = newId('transaction');
  const month = 30 * 86_400_000;
  const periodEnd = new Date(opts.start.getTime() + 2 * month);
  await db.$transaction(async (tx) => {
    await tx.subscription.create({
      data: {
        id: subscriptionId,
        storeId,
        mode,
        customerId,
        productId,
        status: 'active',
        discountId: opts.discountId ?? null,
        currentPeriodStartDate: new Date(opts.start.getTime() + month),
        currentPeriodEndDate: periodEnd,
        nextTransactionDate: periodEnd,
        metadata: { seat: 'a' },
        items: { create: { id: newId('subscriptionItem'), storeId, mode, productId, priceId: productId, units: 2 } },
      },
    });
    const charge = { storeId, mode, customerId, subscriptionId, currency: 'EUR', type: 'invoice' as const, status: 'paid' as const };
    await tx.transaction.create({
      data: { ...charge, id: first, orderId, amount: price, amountPaid: price, taxAmount: 0n, taxCountry: 'DE', periodStart: opts.start, periodEnd: new Date(opts.start.getTime() + month), createdAt: opts.start },
    });
    await tx.order.create({
      data: { id: orderId, storeId, mode, customerId, productId, transactionId: first, discountId: opts.discountId ?? null, status: 'paid', type: 'recurring', currency: 'EUR', subTotal: price, amountDue: price, amountPaid: price, createdAt: opts.start },
    });
    await tx.transaction.create({
      data: { ...charge, id: second, amount: price, amountPaid: price, description: 'Renewal', periodStart: new Date(opts.start.getTime() + month), periodEnd, createdAt: new Date(opts.start.getTime() + month) },
    });
    await tx.subscription.update({ where: { id: subscriptionId }, data: { lastTransactionId: second, lastTransactionDate: new Date(opts.start.getTime() + month) } });
  });
  return { subscriptionId, orderId, transactionIds: [first, second] };
}

describe('purchases through the official client', () => {
  let service: TestService;
  let client: Creem;
  let other: Creem;
  let prodClient: Creem;
  let rest: ReturnType<typeof api>;
  let storeId: string;
  let customerId: string;
  let otherCustomerId: string;
  let monthlyId: string;
  let yearlyId: string;
  let discountId: string;
  let a: Seeded;
  let b: Seeded;
  let onetimeOrderId: string;
  let onetimeTxnId: string;
  let foreign: Seeded;

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    storeId = store.id;
    client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
    prodClient = new Creem({ apiKey: store.prod_api_key, serverURL: service.prodUrl });
    rest = api(service.testUrl, store.test_api_key);
    const otherStore = await service.createStore('Other');
    other = new Creem({ apiKey: otherStore.test_api_key, serverURL: service.testUrl });

    const db = service.db.prisma;
    const seller = service.contextOf(store);
    monthlyId = (await makeRecurringProduct(seller, { name: 'Monthly', description: '', price: 1900, currency: 'EUR', billing_period: 'every-month' })).id;
    yearlyId = (await makeRecurringProduct(seller, { name: 'Yearly', description: '', price: 19000, currency: 'EUR', billing_period: 'every-year' })).id;
    const ebookId = (await makeProduct(seller, { name: 'E-book', description: '', price: 900, currency: 'EUR' })).id;
    customerId = (await makeCustomer(seller, { email: 'ada@example.com', name: 'Ada' })).id;
    otherCustomerId = (await makeCustomer(seller, { email: 'grace@example.com', name: 'Grace' })).id;
    discountId = (await perform(seller, createDiscountOp, { name: 'Launch', code: 'LAUNCH', type: 'percentage', percentage: 20, duration: 'repeating', duration_in_months: 3 })).id;

    a = await seedSubscription(db, storeId, customerId, monthlyId, { price: 1900, discountId, start: new Date('2026-01-01T00:00:00Z') });
    b = await seedSubscription(db, storeId, customerId, yearlyId, { price: 19000, start: new Date('2026-02-01T00:00:00Z') });
    await seedSubscription(db, storeId, otherCustomerId, monthlyId, { price: 1900, start: new Date('2026-03-01T00:00:00Z') });

    onetimeOrderId = newId('order');
    onetimeTxnId = newId('transaction');
    await db.transaction.create({ data: { id: onetimeTxnId, storeId, mode: 'test', customerId, orderId: onetimeOrderId, amount: 900n, amountPaid: 900n, currency: 'EUR', type: 'payment', status: 'paid' } });
    await db.order.create({ data: { id: onetimeOrderId, storeId, mode: 'test', customerId, productId: ebookId, transactionId: onetimeTxnId, status: 'paid', type: 'onetime', currency: 'EUR', subTotal: 900n, amountDue: 900n, amountPaid: 900n, fxAmount: 1000n, fxCurrency: 'USD', fxRate: '1.1111111111' } });

    // Another store's purchases, which must stay invisible.
    const otherSeller = service.contextOf(otherStore);
    const otherProduct = (await makeRecurringProduct(otherSeller, { name: 'Theirs', description: '', price: 500, currency: 'EUR' })).id;
    const otherCustomer = (await makeCustomer(otherSeller, { email: 'ada@example.com', name: 'Ada' })).id;
    foreign = await seedSubscription(db, otherStore.id, otherCustomer, otherProduct, { price: 500, start: new Date('2026-01-01T00:00:00Z') });
  });
  afterAll(() => service?.close());

  it('reads a transaction by id, times as Unix milliseconds', async () => {
    const txn = await client.transactions.getById(a.transactionIds[0]!);
    expect(txn).toMatchObject({
      id: a.transactionIds[0],
      object: 'transaction',
      mode: 'test',
      amount: 1900,
      amountPaid: 1900,
      currency: 'EUR',
      type: 'invoice',
      status: 'paid',
      taxCountry: 'DE',
      order: a.orderId,
      subscription: a.subscriptionId,
      customer: customerId,
      createdAt: Date.parse('2026-01-01T00:00:00Z'),
      periodStart: Date.parse('2026-01-01T00:00:00Z'),
      periodEnd: Date.parse('2026-01-31T00:00:00Z'),
    });
    expect(txn.description).toBeUndefined();
    const oneTime = await client.transactions.getById(onetimeTxnId);
    expect(oneTime).toMatchObject({ type: 'payment', subscription: null, order: onetimeOrderId });
    expect(oneTime.periodStart).toBeUndefined();
  });

  it('searches transactions newest first, by customer, order and product, with paging', async () => {
    const all = await client.transactions.search(customerId);
    expect(all.result.items.map((t) => t.id)).toEqual([onetimeTxnId, ...b.transactionIds.slice().reverse(), ...a.transactionIds.slice().reverse()]);
    expect(all.result.pagination).toMatchObject({ totalRecords: 5, currentPage: 1, nextPage: null });

    const page = await client.transactions.search(customerId, undefined, undefined, 2, 2);
    expect(page.result.items.map((t) => t.id)).toEqual([b.transactionIds[0], a.transactionIds[1]]);
    expect(page.result.pagination).toMatchObject({ totalRecords: 5, totalPages: 3, currentPage: 2, nextPage: 3, prevPage: 1 });

    expect((await client.transactions.search(undefined, a.orderId)).result.items.map((t) => t.id)).toEqual([a.transactionIds[0]]);

    // The monthly product: both charges of each of its two subscriptions in this store, nothing else.
    const monthly = await client.transactions.search(undefined, undefined, monthlyId);
    expect(monthly.result.pagination.totalRecords).toBe(4);
    expect(monthly.result.items.every((t) => t.subscription !== b.subscriptionId && t.id !== onetimeTxnId)).toBe(true);
    const byBoth = await client.transactions.search(customerId, undefined, monthlyId);
    expect(byBoth.result.items.map((t) => t.id)).toEqual(a.transactionIds.slice().reverse());

    // The store-wide list counts this store only.
    expect((await client.transactions.search()).result.pagination.totalRecords).toBe(7);
  });

  it('reads a subscription with product, customer, items, last transaction and discount', async () => {
    const sub = await client.subscriptions.get(a.subscriptionId);
    expect(sub).toMatchObject({
      id: a.subscriptionId,
      object: 'subscription',
      mode: 'test',
      status: 'active',
      collectionMethod: 'charge_automatically',
      product: { id: monthlyId, object: 'product', price: 1900 },
      customer: { id: customerId, email: 'ada@example.com' },
      items: [{ object: 'subscription_item', productId: monthlyId, priceId: monthlyId, units: 2 }],
      lastTransactionId: a.transactionIds[1],
      lastTransaction: { id: a.transactionIds[1], description: 'Renewal' },
      lastTransactionDate: new Date('2026-01-31T00:00:00Z'),
      currentPeriodStartDate: new Date('2026-01-31T00:00:00Z'),
      currentPeriodEndDate: new Date('2026-03-02T00:00:00Z'),
      nextTransactionDate: new Date('2026-03-02T00:00:00Z'),
      canceledAt: null,
      discount: { id: discountId, discountCode: 'LAUNCH', type: 'percentage', amount: 20, duration: 'repeating', durationInMonths: 3 },
      metadata: { seat: 'a' },
    });
    const plain = await client.subscriptions.get(b.subscriptionId);
    expect(plain.discount).toBeUndefined();
  });

  it('searches subscriptions of the store, newest first, with paging', async () => {
    const first = await client.subscriptions.search(1, 2);
    expect(first.result.pagination).toMatchObject({ totalRecords: 3, totalPages: 2, currentPage: 1, nextPage: 2 });
    expect(first.result.items[1]!.id).toBe(b.subscriptionId);
    const second = await client.subscriptions.search(2, 2);
    expect(second.result.items.map((s) => s.id)).toEqual([a.subscriptionId]);
  });

  it("lists a customer's subscriptions and orders", async () => {
    const subs = await client.customers.listSubscriptions(customerId, 1, 10);
    expect(subs.items.map((s) => s.id)).toEqual([b.subscriptionId, a.subscriptionId]);
    expect(subs.pagination).toMatchObject({ totalRecords: 2, totalPages: 1, currentPage: 1 });
    expect(subs.items[0]!.customer).toMatchObject({ id: customerId });

    const orders = await client.customers.getOrders(customerId, 1, 10);
    expect(orders.items.map((o) => o.id)).toEqual([onetimeOrderId, b.orderId, a.orderId]);
    expect(orders.items[0]).toMatchObject({ object: 'order', type: 'onetime', status: 'paid', amount: 900, product: expect.stringMatching(/^prod_/), transaction: onetimeTxnId, fxAmount: 1000, fxCurrency: 'USD' });
    expect(orders.items[0]!.fxRate).toBeCloseTo(1.1111111111, 9);
    expect(orders.items[2]).toMatchObject({ type: 'recurring', discount: discountId, customer: customerId, subTotal: 1900, amountDue: 1900 });

    const paged = await client.customers.getOrders(customerId, 2, 2);
    expect(paged.items.map((o) => o.id)).toEqual([a.orderId]);
    expect(paged.pagination).toMatchObject({ totalRecords: 3, totalPages: 2, currentPage: 2, prevPage: 1, nextPage: null });
  });

  it("answers 404 for another store's or environment's purchases", async () => {
    await expect(client.transactions.getById(foreign.transactionIds[0]!)).rejects.toMatchObject({ statusCode: 404 });
    await expect(client.subscriptions.get(foreign.subscriptionId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.subscriptions.get(a.subscriptionId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.customers.listSubscriptions(customerId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(other.customers.getOrders(customerId)).rejects.toMatchObject({ statusCode: 404 });
    await expect(client.transactions.getById('txn_unknown')).rejects.toMatchObject({ statusCode: 404 });
    // Same store, production environment: the test-mode rows do not exist there.
    await expect(prodClient.transactions.getById(a.transactionIds[0]!)).rejects.toMatchObject({ statusCode: 404 });
    await expect(prodClient.customers.getOrders(customerId)).rejects.toMatchObject({ statusCode: 404 });
    expect((await other.transactions.search(customerId)).result.items).toEqual([]);
  });

  it('refuses bad paging and missing ids with 400 naming the field', async () => {
    for (const path of [
      `/v1/customers/${customerId}/orders?page_size=0`,
      `/v1/customers/${customerId}/subscriptions?page_size=101`,
      '/v1/subscriptions/search?page_number=0',
      '/v1/transactions/search?page_size=abc',
    ]) {
      const res = await rest('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json.message.join(' '), path).toMatch(/page_(size|number)/);
    }
    const missing = await rest('GET', '/v1/transactions');
    expect(missing.status).toBe(400);
    expect(missing.json.message.join(' ')).toMatch(/transaction_id/);
    const missingSub = await rest('GET', '/v1/subscriptions');
    expect(missingSub.status).toBe(400);
    expect(missingSub.json.message.join(' ')).toMatch(/subscription_id/);
  });
});
