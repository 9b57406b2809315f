/**
 * Usage metering on PostgreSQL, each part next to hand-written SQL in the same run:
 *
 * 1. Ingestion: POST /v1/events/ingest in batches of 100 events with client event_ids (10 of
 *    each batch resend ids sent before, so dedup is exercised), 20 connections, over 1,000
 *    customers, one `sum` meter on the event name; against bench/metering-baseline-server.ts
 *    storing the same rows in the same table with one multi-row INSERT … ON CONFLICT DO
 *    NOTHING per batch, and with COPY into a temp table plus INSERT … SELECT.
 * 2. Meter preview: POST /v1/meters/{id}/preview with 1,000,000 events of its name in the
 *    7-day window (seeded by one INSERT … SELECT generate_series), a few sequential requests;
 *    next to the same count/sum per day written by hand, timed through `pg`.
 * 3. Consumed units: GET /v1/meters/{id}/consumed?customer_id=… under 1 and 10 connections,
 *    next to the baseline server reading the same projection row.
 *
 * The service runs on the production listener with RATE_LIMIT=off and JOB_RUNNER=off, like the
 * ledger section.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createStore } from '../src/modules/stores/stores.service.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { childEnv, freePorts, startTs, stopChild, waitForHealthy, type Child } from './children.js';
import { measure, type LoadResult } from './load.js';

export const CUSTOMERS = 1_000;
export const BATCH = 100;
/** Events of each batch (after the first) that resend an event_id sent before. */
export const RESENT = 10;
export const INGEST_CONNECTIONS = 20;
export const PREVIEW_EVENTS = 1_000_000;
/** Sequential preview requests measured, after PREVIEW_WARMUP discarded ones. */
export const PREVIEW_RUNS = 10;
const PREVIEW_WARMUP = 2;
/** Connections of the consumed-units rows; the target is read at the last. */
export const CONSUMED_CONNECTIONS = [1, 10];
/** The service's PREVIEW_SCAN_CAP: a preview reads at most this many newest events. */
const SCAN_CAP = 100_000;
const EVENT = 'api_call';
const PREVIEW_EVENT = 'preview_call';
const INGEST_PATH = '/v1/events/ingest';

export const OURS = 'ours (REST, postgres)';
export const INSERT_BASELINE = 'hand-written pg, INSERT … ON CONFLICT';
export const COPY_BASELINE = 'hand-written pg, COPY + INSERT … SELECT';

export interface IngestRow {
  target: string;
  eventsPerSec: number;
  batchesPerSec: number;
  p99Ms: number;
  /** Events sent (warm-up included) and how many of them resent an earlier event_id. */
  sent: number;
  resent: number;
  /** Rows of the side's store in "UsageEvent" after its run. */
  stored: number;
  non2xx: number;
  errors: number;
}

export interface TimingRow {
  target: string;
  /** Events the statement aggregated. */
  rows: number;
  medianMs: number;
  maxMs: number;
  note: string;
}

export type ConsumedRow = LoadResult & { target: string };

export interface MeteringBench {
  ingest: IngestRow[];
  preview: TimingRow[];
  consumed: ConsumedRow[];
  /** The events table after the run: rows, and bytes per event with and without its indexes. */
  storage: { events: number; bytesPerEvent: number; heapBytesPerEvent: number };
  problems: string[];
}

type Defer = (name: string, run: () => Promise<void>) => void;

async function post<T>(url: string, key: string, body: unknown, expect: number): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== expect) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** CUSTOMERS customers of the store, made through the service's API, 50 at a time. */
async function seedCustomers(baseUrl: string, key: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < CUSTOMERS; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, CUSTOMERS - i) }, () => post<{ id: string }>(`${baseUrl}/v1/customers`, key, { email: `metering-${randomUUID()}@example.com` }, 200)));
    ids.push(...batch.map((c) => c.id));
  }
  return ids;
}

/**
 * Batches of BATCH events over the customers: event n belongs to customer n % CUSTOMERS and
 * carries {"n": 1 + n % 10}; after the first batch, RESENT of each batch are earlier events
 * again (same id, customer and value, as a client's retry would send them).
 */
function eventSource(customers: string[], prefix: string) {
  let next = 0;
  let sent = 0;
  let resent = 0;
  const event = (n: number, timestamp: string) => ({ name: EVENT, customer_id: customers[n % customers.length]!, event_id: `${prefix}-${n}`, timestamp, properties: { n: 1 + (n % 10) } });
  return {
    body(): string {
      const timestamp = new Date().toISOString();
      const before = next;
      const events = Array.from({ length: BATCH }, (_, i) => {
        if (before > 0 && i < RESENT) return event(Math.floor(Math.random() * before), timestamp);
        return event(next++, timestamp);
      });
      sent += BATCH;
      if (before > 0) resent += RESENT;
      return JSON.stringify({ events });
    },
    counts: () => ({ sent, resent, distinct: next }),
  };
}

async function ingestLoad(baseUrl: string, path: string, key: string, source: ReturnType<typeof eventSource>, durationSec: number) {
  const r = await measure({
    url: baseUrl,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    connections: INGEST_CONNECTIONS,
    durationSec,
    warmupSec: 2,
    next: () => ({ path, body: source.body() }),
  });
  return { eventsPerSec: r.requestsPerSec * BATCH, batchesPerSec: r.requestsPerSec, p99Ms: r.p99Ms, non2xx: r.non2xx, errors: r.errors };
}

/** ms, sorted ascending, of `runs` sequential calls after `warmup` discarded ones. */
async function timed(runs: number, warmup: number, call: () => Promise<void>): Promise<{ medianMs: number; maxMs: number }> {
  for (let i = 0; i < warmup; i++) await call();
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await call();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const mid = ms.length >> 1;
  return { medianMs: ms.length % 2 ? ms[mid]! : (ms[mid - 1]! + ms[mid]!) / 2, maxMs: ms[ms.length - 1]! };
}

/** The count and sum per UTC day of the preview's window, written by hand: the newest `limit` rows, or all. */
const handPreviewSql = (limit: number | null) => `
  SELECT to_char("timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*) AS events, sum(usage_number("properties" -> 'n')) AS units
    FROM (SELECT "timestamp", "properties" FROM "UsageEvent"
           WHERE "storeId" = $1 AND "mode" = 'prod' AND "eventName" = $2 AND "timestamp" >= $3 AND "timestamp" < $4
           ORDER BY "timestamp" DESC ${limit === null ? '' : `LIMIT ${limit}`}) e
   GROUP BY 1 ORDER BY 1`;

interface PreviewAnswer {
  matched_events: number;
  units: string;
  distinct_customers: number;
  daily: { date: string; event_count: number; value: string }[];
  scan_capped?: boolean;
}

export async function benchMetering(databaseUrl: string, durationSec: number, defer: Defer): Promise<MeteringBench> {
  const problems: string[] = [];
  const db = await openDatabase({ databaseUrl, poolSize: 2 });
  const [ours, theirs] = await (async () => {
    try {
      await migrate(db);
      return [await createStore(db.prisma, { name: 'Metering bench' }), await createStore(db.prisma, { name: 'Metering baseline' })];
    } finally {
      await db.close();
    }
  })();
  const [port, testPort, basePort] = (await freePorts(3)) as [number, number, number];
  const server = startTs('metering: ours', 'src/server.ts', [], childEnv({ DATABASE_URL: databaseUrl, PORT: String(port), TEST_PORT: String(testPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT: 'off', JOB_RUNNER: 'off' }));
  defer('stop metering server', () => stopChild(server));
  const baseline = startTs('metering: baseline', 'bench/metering-baseline-server.ts', [], childEnv({ DATABASE_URL: databaseUrl, PORT: String(basePort), STORE_ID: theirs.id }));
  defer('stop metering baseline', () => stopChild(baseline));
  // The production listener, as a seller's live traffic (see bench/ledger.ts).
  const ourUrl = `http://127.0.0.1:${port}`;
  const baseUrl = `http://127.0.0.1:${basePort}`;
  await waitForHealthy(server, `http://127.0.0.1:${testPort}/healthz`);
  await waitForHealthy(baseline, `${baseUrl}/healthz`);

  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  defer('close metering bench connection', () => sql.end());
  // Fresh statistics, and no side paying for the previous one's (or the seed's) dirty pages.
  const settle = async () => {
    await sql.query('ANALYZE');
    await sql.query('CHECKPOINT');
  };
  const died = (child: Child) => child.proc.exitCode !== null || child.proc.signalCode !== null;
  const checkAlive = (what: string) => {
    for (const child of [server, baseline]) if (died(child)) throw new Error(`${child.name} exited (${child.proc.signalCode ?? child.proc.exitCode}) during ${what}; its last output:\n${child.output().slice(-4000)}`);
  };

  console.log(`metering: seeding ${CUSTOMERS} customers for the service and ${CUSTOMERS} for the baseline, one sum meter`);
  const ourCustomers = await seedCustomers(ourUrl, ours.prod_api_key);
  const theirCustomers = await seedCustomers(ourUrl, theirs.prod_api_key);
  const meter = await post<{ id: string }>(`${ourUrl}/v1/meters`, ours.prod_api_key, { name: 'API calls', event_name: EVENT, aggregation: 'sum', aggregation_property: 'n', unit_label: 'calls' }, 201);

  // One batch first, sent twice: the second must store nothing.
  const probe = eventSource(ourCustomers.slice(0, 1), `probe-${randomUUID()}`);
  const probeBody = JSON.parse(probe.body()) as unknown;
  for (const round of [1, 2]) {
    const answer = await post<{ accepted: number; event_ids: string[] }>(`${ourUrl}${INGEST_PATH}`, ours.prod_api_key, probeBody, 202);
    if (answer.accepted !== BATCH || answer.event_ids.length !== BATCH) problems.push(`metering: ingest answered ${JSON.stringify(answer).slice(0, 200)} (round ${round})`);
  }
  const probeStored = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM "UsageEvent" WHERE "storeId" = $1 AND "idempotencyKey" LIKE 'probe-%'`, [ours.id])).rows[0]!.n);
  if (probeStored !== BATCH) problems.push(`metering: a batch of ${BATCH} new events sent twice stored ${probeStored} rows`);
  else console.log(`  metering: a batch of ${BATCH} new events sent twice stored ${BATCH} rows`);

  // 1. Ingestion, ours and the two baselines back to back.
  const tag = `${process.pid}-${Date.now()}`;
  const ingest: IngestRow[] = [];
  for (const [target, url, path, key, storeId, customers] of [
    [OURS, ourUrl, INGEST_PATH, ours.prod_api_key, ours.id, ourCustomers],
    [INSERT_BASELINE, baseUrl, INGEST_PATH, 'unused', theirs.id, theirCustomers],
    [COPY_BASELINE, baseUrl, `${INGEST_PATH}?via=copy`, 'unused', theirs.id, theirCustomers],
  ] as const) {
    await settle();
    const before = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM "UsageEvent" WHERE "storeId" = $1 AND "mode" = 'prod' AND "eventName" = $2`, [storeId, EVENT])).rows[0]!.n);
    const source = eventSource(customers, `${target === COPY_BASELINE ? 'copy' : 'ev'}-${tag}`);
    const r = await ingestLoad(url, path, key, source, durationSec);
    checkAlive(`ingestion (${target})`);
    const { sent, resent, distinct } = source.counts();
    const after = Number((await sql.query<{ n: string }>(`SELECT count(*) AS n FROM "UsageEvent" WHERE "storeId" = $1 AND "mode" = 'prod' AND "eventName" = $2`, [storeId, EVENT])).rows[0]!.n);
    const stored = after - before;
    if (stored > distinct) problems.push(`metering ingest ${target}: ${stored} rows stored for ${distinct} distinct event_ids sent`);
    console.log(`  metering ingest: ${target} ${r.eventsPerSec.toFixed(0)} events/s (${r.batchesPerSec.toFixed(0)} batches/s, p99 ${r.p99Ms} ms, ${sent} sent, ${resent} of them resent, ${stored} stored, non-2xx ${r.non2xx}, errors ${r.errors})`);
    ingest.push({ target, ...r, sent, resent, stored });
  }
  // The projection holds exactly what the raw events of the meter hold (concurrent batches, resent ids).
  const fold = (
    await sql.query<{ events: string; n: string; folded: string; folded_sum: string }>(
      `SELECT (SELECT count(*) FROM "UsageEvent" WHERE "storeId" = $1 AND "mode" = 'prod' AND "eventName" = $2) AS events,
              (SELECT coalesce(sum(usage_number("properties" -> 'n')), 0) FROM "UsageEvent" WHERE "storeId" = $1 AND "mode" = 'prod' AND "eventName" = $2)::text AS n,
              (SELECT coalesce(sum("eventCount"), 0) FROM "MeterUsage" WHERE "meterId" = $3) AS folded,
              (SELECT trim_scale(coalesce(sum("sum"), 0)) FROM "MeterUsage" WHERE "meterId" = $3)::text AS folded_sum`,
      [ours.id, EVENT, meter.id],
    )
  ).rows[0]!;
  if (fold.events !== fold.folded || fold.n !== fold.folded_sum) problems.push(`metering: the projection does not match the raw events: ${fold.events} events summing to ${fold.n}, projection ${fold.folded} events summing to ${fold.folded_sum}`);
  else console.log(`  metering ingest: projection matches the raw events (${fold.events} events, sum ${fold.n})`);

  // 2. Preview over PREVIEW_EVENTS events spread over the last 6 days, oldest first in the heap as they would arrive.
  console.log(`metering: seeding ${PREVIEW_EVENTS.toLocaleString('en-US')} events of ${PREVIEW_EVENT} by SQL`);
  const t0 = performance.now();
  await sql.query(
    `INSERT INTO "UsageEvent" ("id", "storeId", "mode", "eventName", "customerId", "properties", "timestamp", "idempotencyKey", "createdAt")
     SELECT 'uev_seed_' || i, $1, 'prod', $2, ($3::text[])[1 + i % $4], jsonb_build_object('n', 1 + i % 10),
            now() - interval '6 days' + interval '6 days' * (i::float8 / $5), 'seed-' || i, now()
       FROM generate_series(1, $5::int) i`,
    [ours.id, PREVIEW_EVENT, ourCustomers, CUSTOMERS, PREVIEW_EVENTS],
  );
  console.log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await settle();
  // Created after its events, as a seller defines a meter for usage already flowing: creation
  // summarizes the window's raw events into the meter's daily rollup, which previews then read.
  const definition = { event_name: PREVIEW_EVENT, aggregation: 'sum', aggregation_property: 'n' };
  const t1 = performance.now();
  const previewMeter = await post<{ id: string }>(`${ourUrl}/v1/meters`, ours.prod_api_key, { name: 'Preview calls', ...definition, unit_label: 'calls' }, 201);
  const creationMs = performance.now() - t1;
  console.log(`  metering preview: creating the meter summarized its events in ${(creationMs / 1000).toFixed(1)} s`);
  await settle();
  let answer: PreviewAnswer | undefined;
  const oursPreview = await timed(PREVIEW_RUNS, PREVIEW_WARMUP, async () => {
    answer = await post<PreviewAnswer>(`${ourUrl}/v1/meters/${previewMeter.id}/preview`, ours.prod_api_key, {}, 200);
  });
  let candidate: PreviewAnswer | undefined;
  const candidatePreview = await timed(PREVIEW_RUNS, PREVIEW_WARMUP, async () => {
    candidate = await post<PreviewAnswer>(`${ourUrl}/v1/meters/preview`, ours.prod_api_key, definition, 200);
  });
  checkAlive('the preview');
  // The service's window: from midnight UTC six days ago, today included, nothing in the future.
  const today = new Date(new Date().toISOString().slice(0, 10)).getTime();
  const handRange = [ours.id, PREVIEW_EVENT, new Date(today - 6 * 86_400_000), new Date(Date.now() + 1)];
  const hand = async (limit: number | null) => {
    let rows: { day: string; events: string; units: string }[] = [];
    const t = await timed(PREVIEW_RUNS, PREVIEW_WARMUP, async () => {
      rows = (await sql.query<{ day: string; events: string; units: string }>(handPreviewSql(limit), handRange)).rows;
    });
    const events = rows.reduce((s, r) => s + Number(r.events), 0);
    const units = rows.reduce((s, r) => s + Number(r.units), 0);
    return { ...t, events, units };
  };
  const sameRows = await hand(SCAN_CAP);
  const allRows = await hand(null);
  if (allRows.events !== PREVIEW_EVENTS) problems.push(`metering preview: the window holds ${allRows.events} events, not ${PREVIEW_EVENTS}`);
  if (!answer || answer.daily.length !== 7 || answer.matched_events !== allRows.events || Number(answer.units) !== allRows.units || answer.scan_capped) {
    problems.push(`metering preview: the service answered ${JSON.stringify(answer).slice(0, 300)}; the whole window by hand: ${allRows.events} events, ${allRows.units} units`);
  }
  if (!candidate || candidate.matched_events !== sameRows.events || Number(candidate.units) !== sameRows.units) {
    problems.push(`metering preview: the candidate preview answered ${JSON.stringify(candidate).slice(0, 300)}; the same newest ${SCAN_CAP} rows by hand: ${sameRows.events} events, ${sameRows.units} units`);
  }
  console.log(`  metering preview: ours median ${oursPreview.medianMs.toFixed(1)} ms, max ${oursPreview.maxMs.toFixed(1)} ms (matched_events ${answer?.matched_events}, scan_capped ${answer?.scan_capped}); candidate (raw scan) ${candidatePreview.medianMs.toFixed(1)} ms; by hand ${sameRows.medianMs.toFixed(1)} ms over the newest ${SCAN_CAP}, ${allRows.medianMs.toFixed(1)} ms over all`);
  // What the events take on disk, to size one server: the table with its indexes, per event.
  const size = (
    await sql.query<{ events: string; bytes: string; heap: string }>(
      `SELECT (SELECT count(*) FROM "UsageEvent") AS events, pg_total_relation_size('"UsageEvent"') AS bytes, pg_relation_size('"UsageEvent"') AS heap`,
    )
  ).rows[0]!;
  const storage = { events: Number(size.events), bytesPerEvent: Number(size.bytes) / Number(size.events), heapBytesPerEvent: Number(size.heap) / Number(size.events) };
  console.log(`  metering storage: ${storage.events} events take ${(Number(size.bytes) / 2 ** 20).toFixed(0)} MiB with their indexes (${storage.bytesPerEvent.toFixed(0)} bytes per event, ${storage.heapBytesPerEvent.toFixed(0)} of them the row)`);
  const days = answer?.daily.filter((d) => d.event_count > 0).length ?? 0;
  const preview: TimingRow[] = [
    { target: 'ours: POST /v1/meters/{id}/preview (daily rollup)', rows: answer?.matched_events ?? 0, ...oursPreview, note: `scan_capped ${answer?.scan_capped}, ${days} of 7 days with events, distinct customers too; creating the meter summarized them in ${(creationMs / 1000).toFixed(1)} s` },
    { target: 'ours: POST /v1/meters/preview (candidate, raw scan)', rows: candidate?.matched_events ?? 0, ...candidatePreview, note: `scan_capped ${candidate?.scan_capped}` },
    { target: 'hand-written SQL, same newest rows', rows: sameRows.events, medianMs: sameRows.medianMs, maxMs: sameRows.maxMs, note: `count and sum per day, newest ${SCAN_CAP.toLocaleString('en-US')}` },
    { target: 'hand-written SQL, whole window', rows: allRows.events, medianMs: allRows.medianMs, maxMs: allRows.maxMs, note: 'count and sum per day, no cap' },
  ];

  // 3. Consumed units of one customer who has usage in the current period.
  const customer = ourCustomers[0]!;
  const expected = (await sql.query<{ units: string }>(`SELECT trim_scale("sum")::text AS units FROM "MeterUsage" WHERE "meterId" = $1 AND "customerId" = $2 ORDER BY "periodStart" DESC LIMIT 1`, [meter.id, customer])).rows[0]?.units;
  const consumed: ConsumedRow[] = [];
  for (const [target, url, key] of [
    [OURS, ourUrl, ours.prod_api_key],
    ['hand-written pg, one SELECT', baseUrl, 'unused'],
  ] as const) {
    const path = `${url}/v1/meters/${meter.id}/consumed?customer_id=${customer}`;
    const res = await fetch(path, { headers: { 'x-api-key': key } });
    const body = (await res.json()) as { units?: string };
    if (res.status !== 200 || body.units !== expected) problems.push(`metering consumed ${target}: answered ${res.status} ${JSON.stringify(body)}, the projection holds ${expected}`);
    for (const connections of CONSUMED_CONNECTIONS) {
      await settle();
      const r = await measure({ url: path, headers: { 'x-api-key': key }, connections, durationSec, warmupSec: 2 });
      checkAlive(`consumed units (${target})`);
      console.log(`  metering consumed: ${target} @ ${connections} connections: ${r.requestsPerSec.toFixed(0)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms (non-2xx ${r.non2xx}, errors ${r.errors})`);
      consumed.push({ target, ...r });
    }
  }

  await stopChild(server);
  await stopChild(baseline);
  for (const r of [...ingest, ...consumed]) if (r.non2xx || r.errors) problems.push(`metering ${r.target}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { ingest, preview, consumed, storage, problems };
}

/** Whole milliseconds from autocannon: 0 means under 1 ms. */
const wholeMs = (v: number) => (v < 1 ? '<1' : v.toFixed(0));

export function formatMeteringBench(r: MeteringBench): string {
  const base = r.ingest.find((x) => x.target === INSERT_BASELINE)!.eventsPerSec;
  const lines = [
    `Ingestion: POST /v1/events/ingest, batches of ${BATCH} (${RESENT} of each resent), ${INGEST_CONNECTIONS} connections, ${CUSTOMERS} customers, one sum meter.`,
    '',
    '| target | events/s | batches/s | p99 ms per batch | events sent | of them resent | rows stored | ours/this |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const oursRow = r.ingest.find((x) => x.target === OURS)!;
  for (const x of r.ingest) {
    const ratio = x.target === OURS ? '—' : (oursRow.eventsPerSec / x.eventsPerSec).toFixed(2);
    lines.push(`| ${x.target} | ${x.eventsPerSec.toFixed(0)} | ${x.batchesPerSec.toFixed(0)} | ${wholeMs(x.p99Ms)} | ${x.sent} | ${x.resent} | ${x.stored} | ${ratio} |`);
  }
  lines.push('', `ours / ${INSERT_BASELINE}: ${(oursRow.eventsPerSec / base).toFixed(2)}`);
  lines.push(
    '',
    `Meter preview (sum) with ${PREVIEW_EVENTS.toLocaleString('en-US')} events in the 7-day window; ${PREVIEW_RUNS} sequential requests or statements after ${PREVIEW_WARMUP} discarded.`,
    '',
    '| what | events aggregated | median ms | max ms | note |',
    '|---|---:|---:|---:|---|',
  );
  for (const x of r.preview) lines.push(`| ${x.target} | ${x.rows} | ${x.medianMs.toFixed(1)} | ${x.maxMs.toFixed(1)} | ${x.note} |`);
  lines.push(
    '',
    'Consumed units of one customer: GET /v1/meters/{id}/consumed (latencies in whole ms, autocannon\'s resolution).',
    '',
    '| target | connections | req/s | p50 ms | p99 ms | non-2xx | errors | ours/baseline req/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const x of r.consumed) {
    const base = r.consumed.find((b) => b.target !== OURS && b.connections === x.connections)!.requestsPerSec;
    lines.push(`| ${x.target} | ${x.connections} | ${x.requestsPerSec.toFixed(0)} | ${wholeMs(x.p50Ms)} | ${wholeMs(x.p99Ms)} | ${x.non2xx} | ${x.errors} | ${x.target === OURS ? (x.requestsPerSec / base).toFixed(2) : '—'} |`);
  }
  lines.push('', `Storage: ${r.storage.events} events in "UsageEvent" take ${r.storage.bytesPerEvent.toFixed(0)} bytes each with the table's indexes (${r.storage.heapBytesPerEvent.toFixed(0)} for the row).`);
  return lines.join('\n');
}
