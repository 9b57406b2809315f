/**
 * The metering baseline: usage events stored by hand with `pg` over plain HTTP (no framework,
 * no auth, no validation beyond JSON.parse, no meters and no projection), in the same
 * "UsageEvent" table and with the same dedup by (store, mode, event_id):
 *
 *   POST /v1/events/ingest            one multi-row INSERT … ON CONFLICT DO NOTHING per batch
 *   POST /v1/events/ingest?via=copy   COPY into a per-connection temp table, then one
 *                                     INSERT … SELECT … ON CONFLICT DO NOTHING moving the rows
 *   GET  /v1/meters/{id}/consumed?customer_id=…   the projection row of the current UTC month
 *
 * Rows go in event_id order, as the service writes them, so two batches resending the same ids
 * wait on each other instead of deadlocking. Run by bench/metering.ts with DATABASE_URL, PORT,
 * STORE_ID (the store the events belong to; mode prod).
 */
import http from 'node:http';
import pg from 'pg';
import { newId } from '../src/lib/ids.js';

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT);
const storeId = process.env.STORE_ID;
if (!url || !Number.isInteger(port) || !storeId) {
  console.error('metering-baseline-server needs DATABASE_URL, PORT and STORE_ID');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: url, max: 20 });
const CONSUMED = /^\/v1\/meters\/([^/?]+)\/consumed\?customer_id=([^&]+)$/;
const COLUMNS = '"id", "storeId", "mode", "eventName", "customerId", "properties", "timestamp", "idempotencyKey", "createdAt"';

interface SentEvent {
  name: string;
  customer_id: string;
  event_id: string;
  timestamp?: string;
  properties?: Record<string, unknown>;
}

interface Row {
  id: string;
  name: string;
  customer: string;
  properties: string;
  at: string;
  key: string;
}

function send(res: http.ServerResponse, status: number, body: unknown) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

function rowsOf(events: SentEvent[], now: string): Row[] {
  const rows = events.map((e) => ({ id: newId('usageEvent'), name: e.name, customer: e.customer_id, properties: JSON.stringify(e.properties ?? {}), at: e.timestamp ?? now, key: e.event_id }));
  return rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** One statement: 100 rows of 9 columns, the constant ones shared as parameters $1..$3. */
async function insertValues(rows: Row[], now: string): Promise<void> {
  const values: unknown[] = [storeId, 'prod', now];
  const tuples = rows.map((r) => {
    const at = values.length;
    values.push(r.id, r.name, r.customer, r.properties, r.at, r.key);
    return `($${at + 1}, $1, $2, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $3)`;
  });
  await pool.query(`INSERT INTO "UsageEvent" (${COLUMNS}) VALUES ${tuples.join(', ')} ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING`, values);
}

/**
 * COPY … FROM STDIN without pg-copy-streams (not a dependency): a pg.Query whose answer to the
 * server's CopyInResponse is the rows, in COPY's text format, then CopyDone.
 */
class CopyIn extends pg.Query {
  constructor(
    text: string,
    private readonly data: Buffer,
    callback: (err: Error | null) => void,
  ) {
    super({ text, callback } as pg.QueryConfig);
  }

  handleCopyInResponse(connection: { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void }): void {
    connection.sendCopyFromChunk(this.data);
    connection.endCopyFrom();
  }
}

/** COPY's text format: backslash, tab, newline and carriage return escaped. */
const copyText = (v: string) => v.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));

const staged = new WeakSet<pg.PoolClient>();

async function insertCopy(rows: Row[], now: string): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    if (!staged.has(client)) {
      await client.query(`CREATE TEMP TABLE usage_in ("id" text, "eventName" text, "customerId" text, "properties" jsonb, "timestamp" timestamptz, "idempotencyKey" text)`);
      staged.add(client);
    }
    const data = Buffer.from(rows.map((r) => [r.id, r.name, r.customer, r.properties, r.at, r.key].map(copyText).join('\t') + '\n').join(''));
    await new Promise<void>((resolve, reject) => {
      client.query(new CopyIn('COPY usage_in FROM STDIN', data, (err) => (err ? reject(err) : resolve())));
    });
    // The staged rows leave the temp table in the statement that stores them.
    await client.query(
      `WITH moved AS (DELETE FROM usage_in RETURNING *)
       INSERT INTO "UsageEvent" (${COLUMNS})
       SELECT "id", $1, $2, "eventName", "customerId", "properties", "timestamp", "idempotencyKey", $3 FROM moved ORDER BY "idempotencyKey"
       ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING`,
      [storeId, 'prod', now],
    );
  } catch (err) {
    // A connection that failed halfway may hold staged rows: it is not reused.
    broken = err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}

async function consumed(meterId: string, customerId: string) {
  const now = new Date();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const row = (
    await pool.query<{ units: string; updated_at: Date }>(
      `SELECT trim_scale("sum")::text AS units, "updatedAt" AS updated_at FROM "MeterUsage" WHERE "meterId" = $1 AND "customerId" = $2 AND "periodStart" = $3`,
      [meterId, customerId, start],
    )
  ).rows[0];
  return { meter_id: meterId, customer_id: customerId, units: row?.units ?? '0', period_start: start.toISOString(), period_end: end.toISOString(), updated_at: row?.updated_at.toISOString() ?? null };
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const path = req.url ?? '';
  if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok' });
  const match = req.method === 'GET' ? CONSUMED.exec(path) : null;
  if (match) return send(res, 200, await consumed(decodeURIComponent(match[1]!), decodeURIComponent(match[2]!)));
  if (req.method !== 'POST' || (path !== '/v1/events/ingest' && path !== '/v1/events/ingest?via=copy')) return send(res, 404, { error: 'not_found' });
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const events = (JSON.parse(raw) as { events: SentEvent[] }).events;
  const now = new Date().toISOString();
  const rows = rowsOf(events, now);
  await (path.endsWith('via=copy') ? insertCopy(rows, now) : insertValues(rows, now));
  send(res, 202, { accepted: events.length, event_ids: events.map((e) => e.event_id) });
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: Error) => {
    console.error(err.message);
    if (!res.headersSent) send(res, 500, { error: 'failed' });
  });
});
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
