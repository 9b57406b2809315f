import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import type { GraphQLContext } from '../../src/graphql/context.js';
import { schema } from '../../src/graphql/schema.js';
import { newId } from '../../src/lib/ids.js';
import { storeContext, type TestContext } from '../support/context.js';
import { openRecordingDatabase } from '../support/database.js';
import { CUSTOMER_GRAPH } from '../support/customer-graph-query.js';
import { makeCustomer, makeRecurringProduct } from '../support/factories.js';

/**
 * The requirement: one GraphQL query reads a customer with its subscriptions (each
 * with product and transactions), orders and licenses, and the number of SQL statements it
 * costs does not depend on how many subscriptions there are. Statements are counted where
 * they leave for the database (the driver adapter), so nothing Prisma does internally hides.
 */

/**
 * A customer with `n` subscriptions, each on its own product with two charges (the first with
 * its order) and two licenses. No checkout writes a renewal, so the purchase rows are inserted
 * directly, naming their tenant (storeId, mode) as direct inserts must.
 */
async function seedCustomer(db: Database, ctx: TestContext, email: string, n: number) {
  const tenant = { storeId: ctx.storeId, mode: ctx.mode };
  const customer = await makeCustomer(ctx, { email });
  const subscriptionIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const product = await makeRecurringProduct(ctx, {
      name: `${email} plan ${i}`,
      price: 1000 + i,
      currency: 'EUR',
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 3 } }],
    });
    const subscriptionId = newId('subscription');
    const orderId = newId('order');
    const [first, second] = [newId('transaction'), newId('transaction')];
    await db.prisma.$transaction(async (tx) => {
      await tx.subscription.create({
        data: {
          id: subscriptionId,
          ...tenant,
          customerId: customer.id,
          productId: product.id,
          status: 'active',
          items: { create: { id: newId('subscriptionItem'), ...tenant, productId: product.id, priceId: product.id, units: 1 } },
        },
      });
      const charge = { ...tenant, customerId: customer.id, subscriptionId, amount: product.price, amountPaid: product.price, currency: 'EUR', type: 'invoice' as const, status: 'paid' as const };
      await tx.transaction.create({ data: { ...charge, id: first, orderId } });
      await tx.transaction.create({ data: { ...charge, id: second } });
      await tx.order.create({
        data: { id: orderId, ...tenant, customerId: customer.id, productId: product.id, transactionId: first, status: 'paid', type: 'recurring', currency: 'EUR', subTotal: product.price, amountDue: product.price, amountPaid: product.price },
      });
      await tx.subscription.update({ where: { id: subscriptionId }, data: { lastTransactionId: second, lastTransactionDate: ctx.clock.now() } });
    });
    subscriptionIds.push(subscriptionId);
  }
  for (let i = 0; i < 2; i++) {
    const productId = (await db.prisma.subscription.findFirstOrThrow({ where: { ...tenant, customerId: customer.id }, select: { productId: true } })).productId;
    await db.prisma.license.create({ data: { id: newId('license'), ...tenant, productId, customerId: customer.id, key: `KEY-${email}-${i}`, status: 'active', activationLimit: 3 } });
  }
  return { customer, subscriptionIds };
}

/**
 * The same shape as `seedCustomer` for hundreds of subscriptions, written in one statement per
 * table (creating each product through the service would take minutes).
 */
async function seedManySubscriptions(db: Database, ctx: TestContext, email: string, n: number) {
  const tenant = { storeId: ctx.storeId, mode: ctx.mode };
  const customer = await makeCustomer(ctx, { email });
  const rows = Array.from({ length: n }, (_, i) => ({
    product: newId('product'),
    subscription: newId('subscription'),
    order: newId('order'),
    first: newId('transaction'),
    second: newId('transaction'),
    price: BigInt(1000 + i),
  }));
  await db.prisma.product.createMany({
    data: rows.map((r, i) => ({ id: r.product, ...tenant, name: `${email} plan ${i}`, description: '', price: r.price, currency: 'EUR', billingType: 'recurring' as const, billingPeriod: 'every-month', recurringInterval: 'month', recurringIntervalCount: 1 })),
  });
  await db.prisma.productFeature.createMany({ data: rows.map((r) => ({ id: newId('feature'), ...tenant, productId: r.product, position: 0, type: 'licenseKey', description: 'Key', licenseActivationLimit: 3 })) });
  await db.prisma.subscription.createMany({
    data: rows.map((r) => ({ id: r.subscription, ...tenant, customerId: customer.id, productId: r.product, status: 'active' as const, lastTransactionId: r.second })),
  });
  await db.prisma.subscriptionItem.createMany({ data: rows.map((r) => ({ id: newId('subscriptionItem'), ...tenant, subscriptionId: r.subscription, productId: r.product, priceId: r.product, units: 1 })) });
  const charge = (r: (typeof rows)[number]) => ({ ...tenant, customerId: customer.id, subscriptionId: r.subscription, amount: r.price, amountPaid: r.price, currency: 'EUR', type: 'invoice' as const, status: 'paid' as const });
  await db.prisma.transaction.createMany({ data: rows.flatMap((r) => [{ ...charge(r), id: r.first, orderId: r.order }, { ...charge(r), id: r.second }]) });
  await db.prisma.order.createMany({
    data: rows.map((r) => ({ id: r.order, ...tenant, customerId: customer.id, productId: r.product, transactionId: r.first, status: 'paid', type: 'recurring', currency: 'EUR', subTotal: r.price, amountDue: r.price, amountPaid: r.price })),
  });
  return customer;
}

describe('GraphQL customer graph: statements do not grow with the number of subscriptions', () => {
  let close: () => Promise<void>;
  let db: Database;
  let ctx: TestContext;
  let run: (query: string, variables: Record<string, unknown>) => Promise<{ data?: any; errors?: any[] }>;
  let recorded: Awaited<ReturnType<typeof openRecordingDatabase>>['recorded'];

  beforeAll(async () => {
    const opened = await openRecordingDatabase();
    close = () => opened.db.close();
    db = opened.db;
    recorded = opened.recorded;
    ctx = await storeContext(db);
    const yoga = createYoga<object, GraphQLContext>({ schema, context: () => ({ core: ctx }), logging: false, maskedErrors: false });
    run = async (query, variables) => {
      const res = await yoga.fetch('http://billing.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.json()) as { data?: any; errors?: any[] };
    };
  });
  afterAll(() => close?.());

  async function counted(id: string) {
    const { value: result, statements } = await recorded(() => run(CUSTOMER_GRAPH, { id }));
    return { result, statements };
  }

  it('costs the same statements for 1 and for 50 subscriptions, and returns all of them', async () => {
    const one = await seedCustomer(db, ctx, 'one@example.com', 1);
    const fifty = await seedCustomer(db, ctx, 'fifty@example.com', 50);

    const small = await counted(one.customer.id);
    const large = await counted(fifty.customer.id);
    expect(small.result.errors).toBeUndefined();
    expect(large.result.errors).toBeUndefined();

    // Not a vacuous comparison: the counter did see the query's statements.
    expect(small.statements.length).toBeGreaterThan(0);
    expect(large.statements.length).toBe(small.statements.length);

    const c = large.result.data.customer;
    expect(c.id).toBe(fifty.customer.id);
    expect(c.subscriptions.totalCount).toBe(50);
    expect(c.subscriptions.edges).toHaveLength(50);
    // Newest first: the reverse of the seeding order.
    expect(c.subscriptions.edges.map((e: any) => e.node.id)).toEqual([...fifty.subscriptionIds].reverse());
    for (const { node } of c.subscriptions.edges) {
      expect(node.product.id).toMatch(/^prod_/);
      expect(node.product.price).toEqual({ amount: expect.stringMatching(/^10\d\d$/), currency: 'EUR' });
      expect(node.product.features).toEqual([{ type: 'licenseKey', licenseActivationLimit: 3 }]);
      expect(node.items).toEqual([{ priceId: node.product.id, units: 1 }]);
      expect(node.transactions.totalCount).toBe(2);
      expect(node.transactions.edges).toHaveLength(2);
      const [newest, oldest] = node.transactions.edges.map((e: any) => e.node);
      expect(node.lastTransaction.id).toBe(newest.id);
      expect(newest.amount).toEqual(node.product.price);
      expect(oldest.order.id).toMatch(/^ord_/);
      expect(newest.order).toBeNull();
    }
    // Each subscription kept its own product and its own charges.
    const rows = await db.prisma.subscription.findMany({ where: { id: { in: fifty.subscriptionIds } }, include: { transactions: true } });
    for (const { node } of c.subscriptions.edges) {
      const row = rows.find((r) => r.id === node.id)!;
      expect(node.product.id).toBe(row.productId);
      expect(node.transactions.edges.map((e: any) => e.node.id).sort()).toEqual(row.transactions.map((t) => t.id).sort());
    }
    expect(c.orders.totalCount).toBe(50);
    expect(c.orders.edges).toHaveLength(50);
    for (const { node } of c.orders.edges) {
      expect(node.transaction).toMatchObject({ status: 'paid' });
      expect(node.product.id).toMatch(/^prod_/);
      expect(node.amountDue.currency).toBe('EUR');
    }
    expect(c.transactions.totalCount).toBe(100);
    expect(c.licenses.totalCount).toBe(2);
    expect(c.licenses.edges).toHaveLength(2);

    const s = small.result.data.customer;
    expect(s.subscriptions.totalCount).toBe(1);
    expect(s.subscriptions.edges[0].node.transactions.totalCount).toBe(2);
    expect(s.orders.totalCount).toBe(1);
  });

  it('costs the same statements for 500 subscriptions, of which it pages the first 100', async () => {
    const one = await seedCustomer(db, ctx, 'single@example.com', 1);
    const many = await seedManySubscriptions(db, ctx, 'many@example.com', 500);
    const small = await counted(one.customer.id);
    const large = await counted(many.id);
    expect(large.result.errors).toBeUndefined();
    expect(small.statements.length).toBeGreaterThan(0);
    expect(large.statements.length).toBe(small.statements.length);
    const c = large.result.data.customer;
    expect([c.subscriptions.totalCount, c.subscriptions.edges.length, c.orders.totalCount, c.orders.edges.length]).toEqual([500, 100, 500, 100]);
    for (const { node } of c.subscriptions.edges) {
      expect(node.transactions.totalCount).toBe(2);
      expect(node.lastTransaction.id).toBe(node.transactions.edges.find((e: any) => e.node.order === null).node.id);
      expect(node.product.features).toEqual([{ type: 'licenseKey', licenseActivationLimit: 3 }]);
    }
  });
});
