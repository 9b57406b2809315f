/**
 * The reference for the customer graph query: POST /graphql with the same JSON body as the
 * service gets, answered by ONE hand-written SQL statement through `pg` that reads the same
 * rows (customer, its subscriptions newest first with product, features, items and up to 10
 * transactions each with their order; orders with product and transaction; the transaction
 * count; licenses with product) and builds the same JSON in PostgreSQL (json aggregation).
 * No GraphQL parsing or validation, no auth, no logging. Run as a child process by
 * bench/run.ts with DATABASE_URL, HOST and PORT.
 */
import http from 'node:http';
import pg from 'pg';

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT);
if (!url || !Number.isInteger(port)) {
  console.error('graph-baseline-server needs DATABASE_URL and PORT');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: url, max: 20 });

const ref = (col: string) => `CASE WHEN ${col} IS NULL THEN NULL ELSE json_build_object('id', ${col}) END`;
/** The GraphQL Money object: minor units as a string, with the currency. */
const money = (amount: string, currency: string) => `json_build_object('amount', ${amount}::text, 'currency', ${currency})`;

/** $1: the customer's /v1 id. Scoped to the customer's store and environment like the service's reads. */
const CUSTOMER_GRAPH_SQL = `
SELECT json_build_object('data', json_build_object('customer', json_build_object(
  'id', c.id,
  'email', c.email,
  'subscriptions', json_build_object(
    'totalCount', (SELECT count(*) FROM "Subscription" s WHERE s."customerId" = c.id AND s."storeId" = c."storeId" AND s.mode = c.mode),
    'edges', COALESCE((
      SELECT json_agg(json_build_object('node', json_build_object(
        'id', s.id,
        'status', s.status,
        'product', json_build_object('id', p.id, 'name', p.name, 'price', ${money('p.price', 'p.currency')}, 'features', COALESCE((
          SELECT json_agg(json_build_object('type', f.type, 'licenseActivationLimit', f."licenseActivationLimit") ORDER BY f.position)
            FROM "ProductFeature" f WHERE f."productId" = p.id), '[]'::json)),
        'items', COALESCE((SELECT json_agg(json_build_object('priceId', i."priceId", 'units', i.units) ORDER BY i.id) FROM "SubscriptionItem" i WHERE i."subscriptionId" = s.id), '[]'::json),
        'lastTransaction', ${ref('s."lastTransactionId"')},
        'transactions', json_build_object(
          'totalCount', (SELECT count(*) FROM "Transaction" t WHERE t."subscriptionId" = s.id),
          'edges', COALESCE((
            SELECT json_agg(json_build_object('node', json_build_object('id', t.id, 'amount', ${money('t.amount', 't.currency')}, 'status', t.status, 'order', ${ref('o.id')})) ORDER BY t.id DESC)
              FROM (SELECT * FROM "Transaction" WHERE "subscriptionId" = s.id ORDER BY id DESC LIMIT 10) t
              LEFT JOIN "Order" o ON o.id = t."orderId"), '[]'::json))
      )) ORDER BY s.id DESC)
        FROM (SELECT * FROM "Subscription" WHERE "customerId" = c.id AND "storeId" = c."storeId" AND mode = c.mode ORDER BY id DESC LIMIT 100) s
        JOIN "Product" p ON p.id = s."productId"), '[]'::json)),
  'orders', json_build_object(
    'totalCount', (SELECT count(*) FROM "Order" o WHERE o."customerId" = c.id AND o."storeId" = c."storeId" AND o.mode = c.mode),
    'edges', COALESCE((
      SELECT json_agg(json_build_object('node', json_build_object(
        'id', o.id, 'amountDue', ${money('o."amountDue"', 'o.currency')}, 'product', json_build_object('id', o."productId"),
        'transaction', CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('id', t.id, 'status', t.status) END
      )) ORDER BY o.id DESC)
        FROM (SELECT * FROM "Order" WHERE "customerId" = c.id AND "storeId" = c."storeId" AND mode = c.mode ORDER BY id DESC LIMIT 100) o
        LEFT JOIN "Transaction" t ON t.id = o."transactionId"), '[]'::json)),
  'transactions', json_build_object(
    'totalCount', (SELECT count(*) FROM "Transaction" t WHERE t."customerId" = c.id AND t."storeId" = c."storeId" AND t.mode = c.mode)),
  'licenses', json_build_object(
    'totalCount', (SELECT count(*) FROM "License" l WHERE l."customerId" = c.id AND l."storeId" = c."storeId" AND l.mode = c.mode),
    'edges', COALESCE((
      SELECT json_agg(json_build_object('node', json_build_object('id', l.id, 'key', l.key, 'product', json_build_object('id', l."productId"))) ORDER BY l.id DESC)
        FROM (SELECT * FROM "License" WHERE "customerId" = c.id AND "storeId" = c."storeId" AND mode = c.mode ORDER BY id DESC LIMIT 100) l), '[]'::json))
)))::text AS body
FROM "Customer" c WHERE c.id = $1`;

function send(res: http.ServerResponse, status: number, json: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** The customer id of the query (global ids are the /v1 ids). */
function customerIdOf(id: unknown): string | null {
  return typeof id === 'string' && id.startsWith('cust_') ? id : null;
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/healthz') {
    await pool.query('SELECT 1');
    return send(res, 200, '{"status":"ok"}');
  }
  if (req.method !== 'POST' || req.url !== '/graphql') return send(res, 404, '{"error":"not_found"}');
  const { variables } = JSON.parse(await readBody(req)) as { variables?: { id?: unknown } };
  const id = customerIdOf(variables?.id);
  const { rows } = id ? await pool.query<{ body: string }>(CUSTOMER_GRAPH_SQL, [id]) : { rows: [] };
  send(res, 200, rows[0]?.body ?? '{"data":{"customer":null}}');
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, '{"error":"internal"}');
  });
});

server.listen(port, process.env.HOST || '127.0.0.1');

async function stop(): Promise<void> {
  server.close();
  server.closeAllConnections();
  await pool.end();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
