/**
 * npm run bench — throughput and latency of GET /v1/products/{id} on the test listener,
 * on PostgreSQL and on the embedded database, next to a bare `pg` baseline.
 *
 *   BENCH_DURATION  seconds of measurement per target and concurrency (default 5)
 *   BENCH_PG_URL    an existing database to issue CREATE/DROP DATABASE from
 *                   (default postgresql://postgres@127.0.0.1:5432/test)
 *
 * Every server runs as a child process so that the load generator (autocannon, in this
 * process) does not share an event loop with what it measures. Exits non-zero only when
 * something broke (a server did not start, non-2xx answers, connection errors); missing
 * the throughput target is reported, not failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { childEnv, freePorts, killAllNow, runTs, startTs, stopChild, waitForHealthy, type Child } from './children.js';
import { measure } from './load.js';
import { createBenchDatabase } from './postgres.js';
import { formatTable, machineDescription, targetVerdict, type Row, type TargetName } from './report.js';

interface Settings {
  adminUrl: string;
  durationSec: number;
  warmupSec: number;
  connections: number[];
}

function readSettings(): Settings {
  const raw = process.env.BENCH_DURATION;
  const durationSec = raw ? Number(raw) : 5;
  if (!Number.isFinite(durationSec) || durationSec <= 0) throw new Error(`BENCH_DURATION must be a positive number of seconds, got "${raw}"`);
  return {
    adminUrl: process.env.BENCH_PG_URL || 'postgresql://postgres@127.0.0.1:5432/test',
    durationSec,
    warmupSec: 1,
    connections: [1, 50],
  };
}

/** Undo steps run last-in first-out, each on its own, so one failing step does not skip the others. */
class Cleanup {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];
  private done: Promise<void> | undefined;

  defer(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /** Safe to call twice (normal end and a signal): the second call waits for the first. */
  run(): Promise<void> {
    this.done ??= (async () => {
      for (const step of this.steps.reverse()) {
        try {
          await step.run();
        } catch (err) {
          console.error(`cleanup: ${step.name} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })();
    return this.done;
  }
}

/** A store with a test key, made by the operator CLI; with the embedded database this must happen while no server holds the data directory. */
async function createStoreKey(dbVars: Record<string, string>): Promise<string> {
  const stdout = await runTs('cli stores create', 'src/cli.ts', ['stores', 'create', '--name', 'Bench', '--json'], childEnv(dbVars));
  const parsed: unknown = JSON.parse(stdout);
  const key = typeof parsed === 'object' && parsed !== null && 'test_api_key' in parsed ? parsed.test_api_key : undefined;
  if (typeof key !== 'string') throw new Error(`cli stores create printed no test_api_key:\n${stdout}`);
  return key;
}

async function createProduct(testUrl: string, apiKey: string): Promise<string> {
  const res = await fetch(`${testUrl}/v1/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({
      name: 'Bench',
      price: 1000,
      currency: 'EUR',
      billing_type: 'onetime',
      custom_fields: [{ type: 'text', key: 'company', label: 'Company' }],
    }),
  });
  const body: unknown = await res.json();
  const id = typeof body === 'object' && body !== null && 'id' in body ? body.id : undefined;
  if (res.status !== 200 || typeof id !== 'string') throw new Error(`POST /v1/products answered ${res.status}: ${JSON.stringify(body)}`);
  return id;
}

interface Started {
  child: Child;
  baseUrl: string;
}

/** Starts a script as a server on fresh ports and waits until its /healthz on `healthPort` answers. */
async function startServer(name: string, script: string, vars: Record<string, string>, healthPort: number, cleanup: Cleanup): Promise<Started> {
  const child = startTs(name, script, [], childEnv({ HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...vars }));
  cleanup.defer(`stop ${name}`, () => stopChild(child));
  const baseUrl = `http://127.0.0.1:${healthPort}`;
  await waitForHealthy(child, `${baseUrl}/healthz`);
  return { child, baseUrl };
}

async function loadTarget(target: TargetName, url: string, headers: Record<string, string>, s: Settings): Promise<Row[]> {
  const rows: Row[] = [];
  for (const connections of s.connections) {
    const result = await measure({ url, headers, connections, durationSec: s.durationSec, warmupSec: s.warmupSec });
    console.log(`  ${target} @ ${connections} connections: ${result.requestsPerSec.toFixed(0)} req/s, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
    rows.push({ target, ...result });
  }
  return rows;
}

/**
 * The service on one database: CLI store first (server not running), then the server as it
 * ships and again with READ_CACHE=off, loading the same product.
 */
async function benchService(target: 'postgres/ours' | 'embedded/ours', dbVars: Record<string, string>, s: Settings, cleanup: Cleanup) {
  console.log(`${target}: creating store, starting server`);
  const apiKey = await createStoreKey(dbVars);
  let productId: string | undefined;
  const rows: Row[] = [];
  for (const [name, vars] of [
    [target, {}],
    [`${target}, READ_CACHE=off`, { READ_CACHE: 'off' }],
  ] as [TargetName, Record<string, string>][]) {
    const [port, testPort] = (await freePorts(2)) as [number, number];
    const server = await startServer(name, 'src/server.ts', { ...dbVars, ...vars, PORT: String(port), TEST_PORT: String(testPort) }, testPort, cleanup);
    productId ??= await createProduct(server.baseUrl, apiKey);
    rows.push(...(await loadTarget(name, `${server.baseUrl}/v1/products/${productId}`, { 'x-api-key': apiKey }, s)));
    await stopChild(server.child);
  }
  return { rows, productId: productId! };
}

async function benchBaseline(databaseUrl: string, productId: string, s: Settings, cleanup: Cleanup): Promise<Row[]> {
  console.log('baseline pg: starting bench/baseline-server.ts');
  const [port] = (await freePorts(1)) as [number];
  const server = await startServer('baseline pg', 'bench/baseline-server.ts', { DATABASE_URL: databaseUrl, PORT: String(port) }, port, cleanup);
  // Same header as the service gets, so both requests cost the same on the wire.
  const rows = await loadTarget('baseline pg', `${server.baseUrl}/v1/products/${productId}`, { 'x-api-key': 'unused' }, s);
  await stopChild(server.child);
  return rows;
}

const ORDER: TargetName[] = ['postgres/ours', 'postgres/ours, READ_CACHE=off', 'embedded/ours', 'embedded/ours, READ_CACHE=off', 'baseline pg'];

function printReport(rows: Row[], s: Settings): void {
  const sorted = [...rows].sort((a, b) => ORDER.indexOf(a.target) - ORDER.indexOf(b.target) || a.connections - b.connections);
  console.log(`\nGET /v1/products/{id}, ${s.durationSec} s per row after a ${s.warmupSec} s warm-up; latencies in whole milliseconds (autocannon's resolution).`);
  console.log('The baseline is a bare node:http + pg server on the PostgreSQL database; it is the reference for both the postgres and the embedded rows.\n');
  console.log(formatTable(sorted));
  console.log(`\n${targetVerdict(rows)}`);
}

async function main(cleanup: Cleanup): Promise<number> {
  const s = readSettings();
  const db = await createBenchDatabase(s.adminUrl);
  cleanup.defer(`drop database ${db.name}`, db.drop);
  console.log(`${machineDescription(db.version)}\n`);
  console.log(`PostgreSQL database: ${db.name}`);

  const pgRun = await benchService('postgres/ours', { DATABASE_URL: db.url }, s, cleanup);
  const baseline = await benchBaseline(db.url, pgRun.productId, s, cleanup);

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
  cleanup.defer(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  const embeddedRun = await benchService('embedded/ours', { DATA_DIR: dataDir }, s, cleanup);

  const rows = [...pgRun.rows, ...embeddedRun.rows, ...baseline];
  printReport(rows, s);
  const broken = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  for (const r of broken) console.error(`BROKEN: ${r.target} @ ${r.connections}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return broken.length ? 1 : 0;
}

const cleanup = new Cleanup();
// A synchronous last resort: if the process ends any other way, no server outlives it.
process.on('exit', killAllNow);
// `on`, not `once`: Ctrl-C reaches this process twice (from the terminal and relayed by the
// npm/tsx wrappers), and a second signal without a handler would kill it mid-cleanup,
// leaving the bench database and the temp directory behind.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: cleaning up`);
    void cleanup.run().finally(() => process.exit(130));
  });
}

let code = 1;
try {
  code = await main(cleanup);
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  await cleanup.run();
}
process.exit(code);
