/**
 * Ledger postings per second: debits of customers' credit accounts through the service's REST
 * API on PostgreSQL, 20 concurrent clients, spread over 1,000 accounts and all on one hot
 * account, each against bench/ledger-baseline-server.ts (the same posting written by hand with
 * `pg`, the same invariants) in the same run.
 */
import { measure } from './load.js';
import { randomUUID } from 'node:crypto';
import { createStore } from '../src/modules/stores/stores.service.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { childEnv, freePorts, startTs, stopChild, waitForHealthy } from './children.js';

export const ACCOUNTS = 1_000;
const CONNECTIONS = 20;

export interface LedgerRow {
  target: string;
  scenario: 'spread' | 'hot';
  postingsPerSec: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

async function json(url: string, key: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

/** A customer with ACCOUNTS buckets, each holding plenty, made through the service's API. */
async function seedAccounts(baseUrl: string, key: string): Promise<string[]> {
  const customer = await json(`${baseUrl}/v1/customers`, key, { email: `ledger-${randomUUID()}@example.com` });
  const ids: string[] = [];
  for (let i = 0; i < ACCOUNTS; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, ACCOUNTS - i) }, (_, j) => json(`${baseUrl}/v1/customer-credits/accounts`, key, { customer_id: customer.id, name: `bucket ${i + j}`, unit_label: 'tokens', initial_balance: '1000000000000' })),
    );
    ids.push(...batch.map((a) => a.id));
  }
  return ids;
}

async function load(baseUrl: string, key: string, accounts: string[], durationSec: number): Promise<Omit<LedgerRow, 'target' | 'scenario'>> {
  const r = await measure({
    url: baseUrl,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    connections: CONNECTIONS,
    durationSec,
    warmupSec: 2,
    next: () => ({
      path: `/v1/customer-credits/accounts/${accounts[Math.floor(Math.random() * accounts.length)]}/debit`,
      body: JSON.stringify({ amount: '1', reference: 'bench', idempotency_key: randomUUID() }),
    }),
  });
  return { postingsPerSec: r.requestsPerSec, p99Ms: r.p99Ms, non2xx: r.non2xx, errors: r.errors };
}

export async function benchLedger(databaseUrl: string, durationSec: number, defer: (name: string, run: () => Promise<void>) => void): Promise<{ rows: LedgerRow[]; problems: string[] }> {
  const db = await openDatabase({ databaseUrl, poolSize: 2 });
  const [ours, theirs] = await (async () => {
    try {
      await migrate(db);
      return [await createStore(db.prisma, { name: 'Ledger bench' }), await createStore(db.prisma, { name: 'Ledger baseline' })];
    } finally {
      await db.close();
    }
  })();
  const [port, testPort, basePort] = (await freePorts(3)) as [number, number, number];
  const server = startTs('ledger: ours', 'src/server.ts', [], childEnv({ DATABASE_URL: databaseUrl, PORT: String(port), TEST_PORT: String(testPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT: 'off', JOB_RUNNER: 'off' }));
  defer('stop ledger server', () => stopChild(server));
  const baseline = startTs('ledger: baseline', 'bench/ledger-baseline-server.ts', [], childEnv({ DATABASE_URL: databaseUrl, PORT: String(basePort) }));
  defer('stop ledger baseline', () => stopChild(baseline));
  // The production listener, as a seller's live traffic: the test listener would also read the
  // store's test clock on every request, which the baseline does not.
  const ourUrl = `http://127.0.0.1:${port}`;
  const baseUrl = `http://127.0.0.1:${basePort}`;
  await waitForHealthy(server, `http://127.0.0.1:${testPort}/healthz`);
  await waitForHealthy(baseline, `${baseUrl}/healthz`);
  console.log(`ledger: seeding ${ACCOUNTS} accounts for the service and ${ACCOUNTS} for the baseline`);
  const ourAccounts = await seedAccounts(ourUrl, ours.prod_api_key);
  const theirAccounts = await seedAccounts(ourUrl, theirs.prod_api_key);

  // Each scenario measures ours and then the baseline back to back, each after a checkpoint
  // and fresh statistics, so neither side pays for the other's (or the seed's) dirty pages.
  const settle = await openDatabase({ databaseUrl, poolSize: 1 });
  defer('close ledger settle connection', () => settle.close());
  const rows: LedgerRow[] = [];
  for (const [scenario, pick] of [['spread', (a: string[]) => a], ['hot', (a: string[]) => a.slice(0, 1)]] as const) {
    for (const [target, url, key, accounts] of [
      ['ours (REST, postgres)', ourUrl, ours.prod_api_key, ourAccounts],
      ['hand-written pg', baseUrl, 'unused', theirAccounts],
    ] as const) {
      await settle.rawQuery('ANALYZE');
      await settle.rawQuery('CHECKPOINT');
      const r = await load(url, key, pick(accounts), durationSec);
      console.log(`  ledger ${scenario}: ${target} ${r.postingsPerSec.toFixed(0)} postings/s (non-2xx ${r.non2xx})`);
      rows.push({ target, scenario, ...r });
    }
  }
  await stopChild(server);
  await stopChild(baseline);
  const problems = rows.filter((r) => r.non2xx || r.errors).map((r) => `ledger ${r.target} ${r.scenario}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rows, problems };
}

export function formatLedgerBench(rows: LedgerRow[]): string {
  const base = (scenario: string) => rows.find((r) => r.target === 'hand-written pg' && r.scenario === scenario)!.postingsPerSec;
  const lines = ['| target | accounts | postings/s | p99 ms | ours/baseline |', '|---|---|---:|---:|---:|'];
  for (const r of rows) {
    const ratio = r.target === 'hand-written pg' ? '—' : (r.postingsPerSec / base(r.scenario)).toFixed(2);
    lines.push(`| ${r.target} | ${r.scenario === 'spread' ? `${ACCOUNTS}, at random` : 'one hot account'} | ${r.postingsPerSec.toFixed(0)} | ${r.p99Ms} | ${ratio} |`);
  }
  return lines.join('\n');
}
