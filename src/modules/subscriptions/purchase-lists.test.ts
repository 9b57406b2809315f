import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../../core/operation.js';
import { db } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { otherContext, perform, storeContext, type TestContext } from '../../../test/support/context.js';
import { createCustomerOp } from '../customers/customers.operations.js';
import { listCustomerOrdersOp } from '../orders/orders.operations.js';
import { createProductOp } from '../products/products.operations.js';
import { getTransactionOp, searchTransactionsOp } from '../transactions/transactions.operations.js';
import { getSubscriptionOp, listCustomerSubscriptionsOp, searchSubscriptionsOp } from './subscriptions.operations.js';

/** The /v1 read operations of purchases: customer-scoped lists, the product filter of transactions, amounts on the wire. */
describe('purchase lists', () => {
  let tdb: TestDatabase;
  let ctx: TestContext;
  let customerId: string;
  let recurringId: string;
  let onetimeId: string;
  const ids = { subscription: newId('subscription'), paid: newId('transaction'), order: newId('order'), declined: newId('transaction') };

  beforeAll(async () => {
    tdb = await openTestDatabase();
    ctx = await storeContext(tdb);
    customerId = (await perform(ctx, createCustomerOp, { email: 'buyer@example.com' })).id;
    recurringId = (await perform(ctx, createProductOp, { name: 'Plan', price: 1500, currency: 'EUR', billing_type: 'recurring', billing_period: 'every-month' })).id;
    onetimeId = (await perform(ctx, createProductOp, { name: 'Book', price: 900, currency: 'EUR', billing_type: 'onetime' })).id;
    // Rows as a paid subscription checkout writes them, and a declined one-time attempt (checkout only).
    const t = db(ctx);
    await t.subscription.create({
      data: { id: ids.subscription, customerId, productId: recurringId, status: 'active', items: { create: { id: newId('subscriptionItem'), productId: recurringId, priceId: recurringId } } },
    });
    await t.transaction.create({
      data: { id: ids.paid, customerId, subscriptionId: ids.subscription, orderId: ids.order, amount: 1500n, amountPaid: 1500n, currency: 'EUR', type: 'invoice', status: 'paid' },
    });
    await t.order.create({
      data: {
        id: ids.order, customerId, productId: recurringId, transactionId: ids.paid, status: 'paid', type: 'recurring', currency: 'EUR',
        subTotal: 1500n, amountDue: 1500n, amountPaid: 1500n, fxAmount: 1620n, fxCurrency: 'USD', fxRate: '1.08',
      },
    });
    await t.subscription.update({ where: { id: ids.subscription }, data: { lastTransactionId: ids.paid } });
    const checkoutId = newId('checkout');
    await t.checkout.create({ data: { id: checkoutId, productId: onetimeId } });
    await t.transaction.create({ data: { id: ids.declined, customerId, checkoutId, amount: 900n, currency: 'EUR', type: 'payment', status: 'declined' } });
  });
  afterAll(() => tdb?.close());

  it('renders bigint amounts as JSON numbers', async () => {
    const orders = (await execute(ctx, listCustomerOrdersOp, { id: customerId })).body as { items: unknown[] };
    expect(orders.items).toEqual([
      expect.objectContaining({
        id: ids.order, object: 'order', amount: 1500, sub_total: 1500, tax_amount: 0, discount_amount: 0, amount_due: 1500, amount_paid: 1500,
        currency: 'EUR', fx_amount: 1620, fx_currency: 'USD', fx_rate: 1.08, status: 'paid', type: 'recurring', transaction: ids.paid,
      }),
    ]);
    const txn = (await execute(ctx, getTransactionOp, { transaction_id: ids.paid })).body;
    expect(txn).toMatchObject({ id: ids.paid, amount: 1500, amount_paid: 1500, discount_amount: 0, tax_amount: 0, refunded_amount: 0, order: ids.order, subscription: ids.subscription });
    const sub = (await execute(ctx, getSubscriptionOp, { subscription_id: ids.subscription })).body;
    expect(sub).toMatchObject({ id: ids.subscription, last_transaction_id: ids.paid, last_transaction: { id: ids.paid, amount: 1500 }, product: { id: recurringId, price: 1500 } });
    const listed = (await execute(ctx, listCustomerSubscriptionsOp, { id: customerId })).body as { items: unknown[] };
    expect(listed.items).toEqual([sub]);
  });

  it('finds a transaction by the product of its subscription, its paid order or, without a subscription, its checkout', async () => {
    const search = async (productId: string) => (await perform(ctx, searchTransactionsOp, { product_id: productId })).items.map((t) => t.id);
    expect(await search(recurringId)).toEqual([ids.paid]);
    expect(await search(onetimeId)).toEqual([ids.declined]);
    expect((await perform(ctx, searchTransactionsOp, { customer_id: customerId })).pagination.total_records).toBe(2);
    expect((await perform(ctx, searchSubscriptionsOp, { product_id: recurringId, status: 'active' })).items.map((s) => s.id)).toEqual([ids.subscription]);
    expect((await perform(ctx, searchSubscriptionsOp, { status: 'canceled' })).items).toEqual([]);
  });

  it('answers 404 for a customer, subscription or transaction of another store or environment', async () => {
    for (const other of [await storeContext(tdb), otherContext(ctx, { mode: 'prod' })]) {
      await expect(perform(other, listCustomerOrdersOp, { id: customerId })).rejects.toMatchObject({ code: 'not_found' });
      await expect(perform(other, listCustomerSubscriptionsOp, { id: customerId })).rejects.toMatchObject({ code: 'not_found' });
      await expect(perform(other, getSubscriptionOp, { subscription_id: ids.subscription })).rejects.toMatchObject({ code: 'not_found' });
      await expect(perform(other, getTransactionOp, { transaction_id: ids.paid })).rejects.toMatchObject({ code: 'not_found' });
      expect((await perform(other, searchTransactionsOp, { customer_id: customerId })).items).toEqual([]);
    }
    await expect(perform(ctx, listCustomerOrdersOp, { id: 'cust_missing' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
