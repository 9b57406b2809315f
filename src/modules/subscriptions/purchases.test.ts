import { GraphQLError } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scope, type RequestContext } from '../../context.js';
import { openDatabase, type Database } from '../../db/database.js';
import { migrate } from '../../db/migrate.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { schema } from '../../graphql/schema.js';
import { AppError, graphqlCodeOf } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { storeContext } from '../../../test/support/context.js';
import { cloneTemplateDatabase, dropDatabase } from '../../../test/support/postgres.js';
import { createCustomer } from '../customers/customers.service.js';
import { listCustomerOrders } from '../orders/orders.service.js';
import { createProduct } from '../products/products.service.js';
import { searchTransactions } from '../transactions/transactions.service.js';
import { listCustomerSubscriptions, searchSubscriptions } from './subscriptions.service.js';

/** Services and GraphQL fields of the purchase read side, over rows inserted as checkout writes them. */

const statements: string[] = [];
let recording = false;

async function openCountedDatabase(): Promise<{ db: Database; close: () => Promise<void> }> {
  const onStatement = (sql: string) => void (recording && statements.push(sql));
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    const url = await cloneTemplateDatabase(baseUrl, inject('pgRunId'));
    const db = await openDatabase({ databaseUrl: url, poolSize: 4, onStatement });
    return { db, close: async () => (await db.close(), await dropDatabase(baseUrl, url)) };
  }
  const db = await openDatabase({ dataDir: undefined, onStatement });
  await migrate(db);
  return { db, close: () => db.close() };
}

async function countStatements<T>(fn: () => Promise<T>): Promise<{ value: T; count: number }> {
  statements.length = 0;
  recording = true;
  try {
    const value = await fn();
    return { value, count: statements.length };
  } finally {
    recording = false;
  }
}

async function seed(ctx: RequestContext, email: string, n: number) {
  const customer = await createCustomer(ctx, { email });
  const product = await createProduct(ctx, { name: `Plan of ${email}`, price: 1500, currency: 'EUR', billing_type: 'recurring', billing_period: 'every-month' });
  const subscriptions: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = newId('subscription');
    const txn = newId('transaction');
    const order = newId('order');
    await ctx.db.subscription.create({
      data: { id, ...scope(ctx), customerId: customer.id, productId: product.id, status: 'active', items: { create: { id: newId('subscriptionItem'), mode: ctx.mode, productId: product.id, priceId: product.id } } },
    });
    await ctx.db.transaction.create({ data: { id: txn, ...scope(ctx), customerId: customer.id, subscriptionId: id, orderId: order, amount: 1500, amountPaid: 1500, currency: 'EUR', type: 'invoice', status: 'paid' } });
    await ctx.db.order.create({ data: { id: order, ...scope(ctx), customerId: customer.id, productId: product.id, transactionId: txn, status: 'paid', type: 'recurring', currency: 'EUR', subTotal: 1500, amountDue: 1500, amountPaid: 1500 } });
    await ctx.db.subscription.update({ where: { id }, data: { lastTransactionId: txn } });
    subscriptions.push(id);
  }
  return { customer, product, subscriptions };
}

describe('purchases read side', () => {
  let close: () => Promise<void>;
  let ctx: RequestContext;
  let otherCtx: RequestContext;
  let gql: (query: string, variables?: Record<string, unknown>, as?: RequestContext) => Promise<{ data?: any; errors?: any[] }>;

  beforeAll(async () => {
    const opened = await openCountedDatabase();
    close = opened.close;
    ctx = await storeContext(opened.db.prisma);
    otherCtx = await storeContext(opened.db.prisma);
    gql = async (query, variables = {}, as = ctx) => {
      const yoga = createYoga<object, GraphQLContext>({
        schema,
        context: () => ({ core: as }),
        logging: false,
        // The service's own masking (src/graphql/yoga.ts) needs express; this keeps its code mapping.
        maskedErrors: {
          maskError: (error) => {
            const cause = error instanceof GraphQLError ? error.originalError : error;
            if (cause instanceof AppError) return new GraphQLError(cause.message, { extensions: { code: graphqlCodeOf(cause.code) } });
            return error as Error;
          },
        },
      });
      const res = await yoga.fetch('http://billing.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return (await res.json()) as { data?: any; errors?: any[] };
    };
  });
  afterAll(() => close?.());

  it('lists a page of subscriptions, orders and transactions in a fixed number of statements', async () => {
    const few = await seed(ctx, 'few@example.com', 1);
    const many = await seed(ctx, 'many@example.com', 20);
    const page = { page_size: 50 };

    const subsFew = await countStatements(() => listCustomerSubscriptions(ctx, few.customer.id, page));
    const subsMany = await countStatements(() => listCustomerSubscriptions(ctx, many.customer.id, page));
    expect(subsMany.value.items).toHaveLength(20);
    expect(subsMany.value.items.every((s) => s.product.id === many.product.id && s.transactions[0]?.id === s.lastTransactionId)).toBe(true);
    expect(subsFew.count).toBeGreaterThan(0);
    expect(subsMany.count).toBe(subsFew.count);

    const ordersFew = await countStatements(() => listCustomerOrders(ctx, few.customer.id, page));
    const ordersMany = await countStatements(() => listCustomerOrders(ctx, many.customer.id, page));
    expect(ordersMany.value.items).toHaveLength(20);
    expect(ordersMany.count).toBe(ordersFew.count);

    const txFew = await countStatements(() => searchTransactions(ctx, { customer_id: few.customer.id }));
    const txMany = await countStatements(() => searchTransactions(ctx, { customer_id: many.customer.id, page_size: 50 }));
    expect(txMany.value.items).toHaveLength(20);
    expect(txMany.count).toBe(txFew.count);

    const search = await countStatements(() => searchSubscriptions(ctx, { page_size: 100, product_id: many.product.id }));
    expect(search.value.pagination.total_records).toBe(20);
    expect(search.count).toBe(subsFew.count - 1); // no customer lookup
  });

  it('reads transactions and subscriptions through GraphQL, filtered and scoped', async () => {
    const { customer, product, subscriptions } = await seed(ctx, 'gql@example.com', 2);
    const byProduct = await gql(`query($p: ID) { transactions(productId: $p, first: 10) { totalCount edges { node { apiId type status subscription { apiId } customer { apiId } order { apiId status } } } } }`, {
      p: product.id,
    });
    expect(byProduct.errors).toBeUndefined();
    expect(byProduct.data.transactions.totalCount).toBe(2);
    expect(byProduct.data.transactions.edges.map((e: any) => e.node.subscription.apiId)).toEqual([...subscriptions].reverse());
    expect(byProduct.data.transactions.edges[0].node).toMatchObject({ type: 'invoice', status: 'paid', customer: { apiId: customer.id }, order: { status: 'paid' } });

    const sub = await gql(`query($id: ID!) { subscription(id: $id) { id apiId status product { apiId } customer { apiId } items { priceId units } lastTransaction { apiId } transactions(first: 1) { totalCount } discount { apiId } } }`, {
      id: subscriptions[0],
    });
    expect(sub.errors).toBeUndefined();
    expect(sub.data.subscription).toMatchObject({ apiId: subscriptions[0], status: 'active', product: { apiId: product.id }, customer: { apiId: customer.id }, items: [{ priceId: product.id, units: 1 }], transactions: { totalCount: 1 }, discount: null });
    expect(sub.data.subscription.lastTransaction.apiId).toMatch(/^txn_/);

    // The global id works through node(), and the Order type is reachable from a transaction.
    const node = await gql(`query($id: ID!) { node(id: $id) { ... on Subscription { apiId } } }`, { id: sub.data.subscription.id });
    expect(node.data.node).toEqual({ apiId: subscriptions[0] });

    const filtered = await gql(`query($c: ID) { subscriptions(customerId: $c, status: active, first: 5) { totalCount } canceled: subscriptions(customerId: $c, status: canceled) { totalCount } }`, { c: customer.id });
    expect(filtered.data).toEqual({ subscriptions: { totalCount: 2 }, canceled: { totalCount: 0 } });

    // Another store sees none of it.
    const foreign = await gql(`query($id: ID!) { subscription(id: $id) { apiId } }`, { id: subscriptions[0] }, otherCtx);
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const foreignTxn = await gql(`query($id: ID!) { transaction(id: $id) { apiId } }`, { id: byProduct.data.transactions.edges[0].node.apiId }, otherCtx);
    expect(foreignTxn.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const foreignList = await gql(`query($p: ID) { transactions(productId: $p) { totalCount } subscriptions { totalCount } }`, { p: product.id }, otherCtx);
    expect(foreignList.data).toEqual({ transactions: { totalCount: 0 }, subscriptions: { totalCount: 0 } });
  });
});
