/**
 * The customer graph measurement: one customer with 50 subscriptions (each on its own product,
 * with two charges), 50 orders and 3 licenses, read in one GraphQL query, the same shape as
 * test/graphql/customer-graph.test.ts. The baseline (bench/graph-baseline-server.ts) reads the
 * same rows with one hand-written SQL statement (json aggregation).
 */
import pg from 'pg';
import { newId } from '../src/lib/ids.js';

export const SUBSCRIPTIONS = 50;
export const LICENSES = 3;

export { CUSTOMER_GRAPH } from '../test/support/customer-graph-query.js';

/** Seeds the customer in the test environment of `storeId`, in one transaction; returns its /v1 id. */
export async function seedCustomerGraph(databaseUrl: string, storeId: string, subscriptions = SUBSCRIPTIONS, email = 'graph@bench.example'): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    const customerId = newId('customer');
    const t = Date.now() - 3_600_000;
    // Strictly increasing timestamps, so "newest first" has one answer.
    const at = (i: number) => new Date(t + i * 1000);
    await client.query(
      `INSERT INTO "Customer" (id, "storeId", mode, email, name, country, "createdAt", "updatedAt") VALUES ($1, $2, 'test', $4, 'Graph Bench', 'US', $3, $3)`,
      [customerId, storeId, at(0), email],
    );
    const productIds: string[] = [];
    for (let i = 0; i < subscriptions; i++) {
      const productId = newId('product');
      const subscriptionId = newId('subscription');
      const orderId = newId('order');
      const [first, second] = [newId('transaction'), newId('transaction')];
      const price = 1000 + i;
      productIds.push(productId);
      await client.query(
        `INSERT INTO "Product" (id, "storeId", mode, name, description, price, currency, "billingType", "billingPeriod", "recurringInterval", "recurringIntervalCount", "imageUrls", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, 'A plan', $4, 'EUR', 'recurring', 'every-month', 'month', 1, '{}', $5, $5)`,
        [productId, storeId, `Graph plan ${i}`, price, at(i + 1)],
      );
      await client.query(
        `INSERT INTO "ProductFeature" (id, "storeId", mode, "productId", position, type, description, "licenseActivationLimit") VALUES ($1, $3, 'test', $2, 0, 'licenseKey', 'Key', 3)`,
        [newId('feature'), productId, storeId],
      );
      await client.query(
        `INSERT INTO "Subscription" (id, "storeId", mode, "customerId", "productId", status, "lastTransactionId", "lastTransactionDate", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, 'active', $5, $6, $6, $6)`,
        [subscriptionId, storeId, customerId, productId, second, at(i + 1)],
      );
      await client.query(`INSERT INTO "SubscriptionItem" (id, "storeId", mode, "subscriptionId", "productId", "priceId", units) VALUES ($1, $4, 'test', $2, $3, $3, 1)`, [
        newId('subscriptionItem'),
        subscriptionId,
        productId,
        storeId,
      ]);
      for (const [id, order] of [
        [first, orderId],
        [second, null],
      ] as const) {
        await client.query(
          `INSERT INTO "Transaction" (id, "storeId", mode, "customerId", "orderId", "subscriptionId", amount, "amountPaid", currency, type, status, "createdAt")
           VALUES ($1, $2, 'test', $3, $4, $5, $6, $6, 'EUR', 'invoice', 'paid', $7)`,
          [id, storeId, customerId, order, subscriptionId, price, at(i + 1)],
        );
      }
      await client.query(
        `INSERT INTO "Order" (id, "storeId", mode, "customerId", "productId", "transactionId", status, type, currency, "subTotal", "amountDue", "amountPaid", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, $5, 'paid', 'recurring', 'EUR', $6, $6, $6, $7, $7)`,
        [orderId, storeId, customerId, productId, first, price, at(i + 1)],
      );
    }
    for (let i = 0; i < LICENSES; i++) {
      await client.query(
        `INSERT INTO "License" (id, "storeId", mode, "productId", "customerId", key, status, "activationLimit", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, $5, 'active', 3, $6, $6)`,
        [newId('license'), storeId, productIds[i], customerId, `GRAPH-BENCH-KEY-${email}-${i}`, at(subscriptions + 1 + i)],
      );
    }
    await client.query('COMMIT');
    return customerId;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * One request before the load: the answer must be the whole graph (a GraphQL error is a 200
 * too, so autocannon's non-2xx count would not notice it). Returns the body size in bytes.
 */
export async function checkGraphAnswer(url: string, headers: Record<string, string>, body: string, subscriptions = SUBSCRIPTIONS): Promise<number> {
  // The query pages the first 100 subscriptions and orders.
  const page = Math.min(subscriptions, 100);
  const res = await fetch(url, { method: 'POST', headers, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 500)}`);
  const json = JSON.parse(text) as { errors?: unknown; data?: { customer?: any } };
  const c = json.data?.customer;
  const problems: string[] = [];
  if (json.errors) problems.push(`errors: ${JSON.stringify(json.errors).slice(0, 500)}`);
  if (c?.subscriptions?.totalCount !== subscriptions || c?.subscriptions?.edges?.length !== page) problems.push(`not ${subscriptions} subscriptions`);
  if (!c?.subscriptions?.edges?.every((e: any) => e.node.transactions.edges.length === 2 && e.node.product.features.length === 1)) problems.push('a subscription without its 2 transactions or its feature');
  if (c?.orders?.totalCount !== subscriptions || c?.orders?.edges?.length !== page) problems.push(`not ${subscriptions} orders`);
  if (c?.transactions?.totalCount !== 2 * subscriptions) problems.push(`not ${2 * subscriptions} transactions`);
  if (c?.licenses?.totalCount !== LICENSES || c?.licenses?.edges?.length !== LICENSES) problems.push(`not ${LICENSES} licenses`);
  if (problems.length) throw new Error(`${url}: the customer graph is incomplete (${problems.join('; ')}):\n${text.slice(0, 500)}`);
  return Buffer.byteLength(text);
}
