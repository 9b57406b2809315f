/**
 * BENCH_ONLY=graph-floor: what the customer graph of 50 subscriptions costs in the service
 * process, and the floors of its parts on this stack, measured in this process (no HTTP, one
 * caller, CPU from process.cpuUsage):
 *   - the service's answer: yoga + Pothos + plugin-prisma + the Prisma client (as shipped);
 *   - graphql-js executing the same query over plain objects with default resolvers, plus
 *     JSON.stringify: the executor's own floor for the 1,100 fields of the answer;
 *   - graphql-jit doing the same, when it is installed (`npm i --no-save graphql-jit`; not a
 *     dependency of the service);
 *   - `pg` reading the rows the answer needs: every column, one statement after another (what
 *     a per-relation loader reading whole rows does), and only the needed columns, in parallel.
 * The design that would meet the 0.5 is the sum of the cheapest parts (bench/RESULTS.md).
 */
import { createRequire } from 'node:module';
import { buildSchema, execute, parse, printSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { dataScope } from '../src/db/tenant.js';
import { schema } from '../src/graphql/schema.js';
import { systemClock } from '../src/lib/clock.js';
import { createStore } from '../src/modules/stores/stores.service.js';
import { CUSTOMER_GRAPH, seedCustomerGraph } from './customer-graph.js';

const RUNS = 200;

async function cpuMsPer(runs: number, fn: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  for (let i = 0; i < 30; i++) await fn();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await fn();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / runs, wall: (performance.now() - t0) / runs };
}

export async function benchGraphFloor(databaseUrl: string): Promise<string[]> {
  const db = await openDatabase({ databaseUrl });
  const lines: string[] = [];
  try {
    await migrate(db);
    const store = await createStore(db.prisma, { name: 'Graph floor' });
    const core = { data: dataScope(db.prisma), storeId: store.id, mode: 'test' as const, clock: systemClock, traceId: 'bench', source: 'bench', baseUrl: 'http://bench' };
    const id = await seedCustomerGraph(databaseUrl, store.id, 50, 'floor@bench.example');
    const yoga = createYoga<object, { core: typeof core }>({ schema, context: () => ({ core }), logging: false, maskedErrors: false });
    const answer = async () => {
      const res = await yoga.fetch('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: CUSTOMER_GRAPH, variables: { id } }) });
      const body = (await res.json()) as { data?: { customer: unknown }; errors?: unknown };
      if (body.errors || !body.data?.customer) throw new Error(`the graph query failed: ${JSON.stringify(body.errors)}`);
      return body.data.customer;
    };
    const customer = await answer();
    const service = await cpuMsPer(RUNS, answer);
    lines.push(`service (yoga, Pothos, plugin-prisma, Prisma client): ${service.cpu.toFixed(2)} ms CPU, ${service.wall.toFixed(2)} ms wall per answer`);

    // Default resolvers read the answer's own shape; each run gets a fresh copy, as loaded rows would be.
    const sdl = printSchema(schema);
    const plain = buildSchema(sdl);
    const document = parse(CUSTOMER_GRAPH);
    const root = { get customer() { return structuredClone(customer); } };
    const clone = await cpuMsPer(RUNS, async () => root.customer);
    const executor = await cpuMsPer(RUNS, async () => JSON.stringify(await execute({ schema: plain, document, rootValue: root, variableValues: { id } })));
    lines.push(`graphql-js over plain objects + JSON.stringify: ${(executor.cpu - clone.cpu).toFixed(2)} ms CPU (copying the objects, ${clone.cpu.toFixed(2)} ms, subtracted)`);
    const jit = loadOptional('graphql-jit') as { compileQuery(s: unknown, d: unknown): { query(r: unknown, c: unknown, v: unknown): Promise<unknown>; stringify(r: unknown): string } } | null;
    if (jit) {
      const compiled = jit.compileQuery(plain, document);
      const jitted = await cpuMsPer(RUNS, async () => compiled.stringify(await compiled.query(root, {}, { id })));
      lines.push(`graphql-jit over plain objects + its stringify: ${(jitted.cpu - clone.cpu).toFixed(2)} ms CPU`);
    } else lines.push('graphql-jit: not installed (npm i --no-save graphql-jit to measure it)');

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    try {
      const wide = statements(id, false);
      const narrow = statements(id, true);
      const sequential = await cpuMsPer(RUNS, async () => { for (const [sql, args] of wide) await pool.query(sql, args); });
      const parallel = await cpuMsPer(RUNS, () => Promise.all(narrow.map(([sql, args]) => pool.query(sql, args))));
      lines.push(`pg, the answer's rows, every column, 10 statements one after another: ${sequential.cpu.toFixed(2)} ms CPU, ${sequential.wall.toFixed(2)} ms wall`);
      lines.push(`pg, the answer's rows, needed columns only, 10 statements in parallel on 2 connections: ${parallel.cpu.toFixed(2)} ms CPU, ${parallel.wall.toFixed(2)} ms wall`);
    } finally {
      await pool.end();
    }
  } finally {
    await db.close();
  }
  return lines;
}

function loadOptional(name: string): unknown {
  try {
    return createRequire(import.meta.url)(name);
  } catch {
    return null;
  }
}

/** The rows of the graph: customer, a page of subscriptions with products, features and items, ten transactions per subscription with counts, orders, licenses, counts. */
function statements(customerId: string, narrow: boolean): [string, unknown[]][] {
  const cols = (few: string) => (narrow ? few : '*');
  const ofCustomer = (table: string) => `"${table}" WHERE "customerId" = $1`;
  return [
    [`SELECT ${cols('id, email')} FROM "Customer" WHERE id = $1`, [customerId]],
    [`SELECT ${cols('id, status, "productId", "lastTransactionId"')} FROM ${ofCustomer('Subscription')} ORDER BY id DESC LIMIT 101`, [customerId]],
    [`SELECT count(*) FROM ${ofCustomer('Subscription')}`, [customerId]],
    [`SELECT ${cols('p.id, p.name, p.price, p.currency')} FROM "Product" p WHERE p.id IN (SELECT "productId" FROM ${ofCustomer('Subscription')})`, [customerId]],
    [`SELECT ${cols('f."productId", f.type, f."licenseActivationLimit"')} FROM "ProductFeature" f WHERE f."productId" IN (SELECT "productId" FROM ${ofCustomer('Subscription')})`, [customerId]],
    [`SELECT ${cols('i."subscriptionId", i."priceId", i.units')} FROM "SubscriptionItem" i WHERE i."subscriptionId" IN (SELECT id FROM ${ofCustomer('Subscription')})`, [customerId]],
    [
      `SELECT * FROM (SELECT ${cols('t.id, t."subscriptionId", t.amount, t.currency, t.status, t."orderId"').replace(/^\*$/, 't.*')}, row_number() OVER (PARTITION BY "subscriptionId" ORDER BY id DESC) AS r, count(*) OVER (PARTITION BY "subscriptionId") AS n FROM "Transaction" t WHERE "customerId" = $1) x WHERE r <= 11`,
      [customerId],
    ],
    [`SELECT ${cols('id, "amountDue", currency, "productId", "transactionId"')} FROM ${ofCustomer('Order')} ORDER BY id DESC LIMIT 101`, [customerId]],
    [`SELECT ${cols('id, key, "productId"')} FROM ${ofCustomer('License')} ORDER BY id DESC LIMIT 101`, [customerId]],
    [`SELECT count(*) FROM ${ofCustomer('Transaction')}`, [customerId]],
  ];
}
