import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphQLContext } from '../../graphql/context.js';
import { schema } from '../../graphql/schema.js';
import { perform, storeContext, type TestContext } from '../../../test/support/context.js';
import { openRecordingDatabase } from '../../../test/support/database.js';
import { makeCustomer, makeRecurringProduct, makeSubscription } from '../../../test/support/factories.js';
import { listCustomerOrdersOp } from '../orders/orders.operations.js';
import { searchTransactionsOp } from '../transactions/transactions.operations.js';
import { listCustomerSubscriptionsOp, searchSubscriptionsOp } from './subscriptions.operations.js';

/** Services and GraphQL fields of the purchase read side, over purchases the checkout wrote. */

let recorded: Awaited<ReturnType<typeof openRecordingDatabase>>['recorded'];

async function countStatements<T>(fn: () => Promise<T>): Promise<{ value: T; count: number }> {
  const { value, statements } = await recorded(fn);
  return { value, count: statements.length };
}

/** A customer with `n` monthly subscriptions to one product, each bought through a checkout (subscription, invoice, order). */
async function seed(ctx: TestContext, email: string, n: number) {
  const customer = await makeCustomer(ctx, { email });
  const product = await makeRecurringProduct(ctx, { name: `Plan of ${email}`, price: 1500, currency: 'EUR' });
  const subscriptions: string[] = [];
  for (let i = 0; i < n; i++) {
    const bought = await makeSubscription(ctx, { productId: product.id, buyer: { email } });
    expect(bought.customer.id).toBe(customer.id);
    subscriptions.push(bought.subscription.id);
  }
  return { customer, product, subscriptions };
}

const MANY = 6;

describe('purchases read side', () => {
  let close: () => Promise<void>;
  let ctx: TestContext;
  let otherCtx: TestContext;
  let gql: (query: string, variables?: Record<string, unknown>, as?: TestContext) => Promise<{ data?: any; errors?: any[] }>;

  beforeAll(async () => {
    const opened = await openRecordingDatabase();
    close = () => opened.db.close();
    recorded = opened.recorded;
    ctx = await storeContext(opened.db);
    otherCtx = await storeContext(opened.db);
    gql = async (query, variables = {}, as = ctx) => {
      const yoga = createYoga<object, GraphQLContext>({ schema, context: () => ({ core: as }), logging: false, maskedErrors: false });
      const res = await yoga.fetch('http://billing.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return (await res.json()) as { data?: any; errors?: any[] };
    };
  });
  afterAll(() => close?.());

  it('lists a page of subscriptions, orders and transactions in a fixed number of statements', async () => {
    const few = await seed(ctx, 'few@example.com', 1);
    // Six rows are enough: a query per row would show as five more statements than for one.
    const many = await seed(ctx, 'many@example.com', MANY);
    const page = { page_size: 50 };

    const subsFew = await countStatements(() => perform(ctx, listCustomerSubscriptionsOp, { id: few.customer.id, ...page }));
    const subsMany = await countStatements(() => perform(ctx, listCustomerSubscriptionsOp, { id: many.customer.id, ...page }));
    expect(subsMany.value.items).toHaveLength(MANY);
    expect(subsMany.value.items.every((s) => s.product.id === many.product.id && s.transactions[0]?.id === s.lastTransactionId)).toBe(true);
    expect(subsFew.count).toBeGreaterThan(0);
    expect(subsMany.count).toBe(subsFew.count);

    const ordersFew = await countStatements(() => perform(ctx, listCustomerOrdersOp, { id: few.customer.id, ...page }));
    const ordersMany = await countStatements(() => perform(ctx, listCustomerOrdersOp, { id: many.customer.id, ...page }));
    expect(ordersMany.value.items).toHaveLength(MANY);
    expect(ordersMany.count).toBe(ordersFew.count);

    const txFew = await countStatements(() => perform(ctx, searchTransactionsOp, { customer_id: few.customer.id }));
    const txMany = await countStatements(() => perform(ctx, searchTransactionsOp, { customer_id: many.customer.id, page_size: 50 }));
    expect(txMany.value.items).toHaveLength(MANY);
    expect(txMany.count).toBe(txFew.count);

    const search = await countStatements(() => perform(ctx, searchSubscriptionsOp, { page_size: 100, product_id: many.product.id }));
    expect(search.value.pagination.total_records).toBe(MANY);
    expect(search.count).toBe(subsFew.count - 1); // no customer lookup
  });

  it('reads transactions and subscriptions through GraphQL, filtered and scoped', async () => {
    const { customer, product, subscriptions } = await seed(ctx, 'gql@example.com', 2);
    const byProduct = await gql(`query($p: ID) { transactions(productId: $p, first: 10) { totalCount edges { node { id type status subscription { id } customer { id } order { id status } } } } }`, {
      p: product.id,
    });
    expect(byProduct.errors).toBeUndefined();
    expect(byProduct.data.transactions.totalCount).toBe(2);
    expect(byProduct.data.transactions.edges.map((e: any) => e.node.subscription.id)).toEqual([...subscriptions].reverse());
    expect(byProduct.data.transactions.edges[0].node).toMatchObject({ type: 'invoice', status: 'paid', customer: { id: customer.id }, order: { status: 'paid' } });

    const sub = await gql(`query($id: ID!) { subscription(id: $id) { id status product { id } customer { id } items { priceId units } lastTransaction { id } transactions(first: 1) { totalCount } discount { id } } }`, {
      id: subscriptions[0],
    });
    expect(sub.errors).toBeUndefined();
    expect(sub.data.subscription).toMatchObject({ id: subscriptions[0], status: 'active', product: { id: product.id }, customer: { id: customer.id }, items: [{ priceId: product.id, units: 1 }], transactions: { totalCount: 1 }, discount: null });
    expect(sub.data.subscription.lastTransaction.id).toMatch(/^txn_/);

    // The global id (the /v1 id) works through node(), and the Order type is reachable from a transaction.
    const node = await gql(`query($id: ID!) { node(id: $id) { ... on Subscription { id } } }`, { id: sub.data.subscription.id });
    expect(node.errors).toBeUndefined();
    expect(node.data.node).toEqual({ id: subscriptions[0] });

    const filtered = await gql(`query($c: ID) { subscriptions(customerId: $c, status: active, first: 5) { totalCount } canceled: subscriptions(customerId: $c, status: canceled) { totalCount } }`, { c: customer.id });
    expect(filtered.data).toEqual({ subscriptions: { totalCount: 2 }, canceled: { totalCount: 0 } });

    // Another store sees none of it: its lookups answer null.
    const foreign = await gql(`query($id: ID!) { subscription(id: $id) { id } node(id: $id) { id } }`, { id: subscriptions[0] }, otherCtx);
    expect(foreign.errors).toBeUndefined();
    expect(foreign.data).toEqual({ subscription: null, node: null });
    const foreignTxn = await gql(`query($id: ID!) { transaction(id: $id) { id } }`, { id: byProduct.data.transactions.edges[0].node.id }, otherCtx);
    expect(foreignTxn.errors).toBeUndefined();
    expect(foreignTxn.data.transaction).toBeNull();
    const foreignList = await gql(`query($p: ID) { transactions(productId: $p) { totalCount } subscriptions { totalCount } }`, { p: product.id }, otherCtx);
    expect(foreignList.data).toEqual({ transactions: { totalCount: 0 }, subscriptions: { totalCount: 0 } });
  });
});
