import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { dataScope, inTransaction } from '../../src/db/tenant.js';
import { ManualClock } from '../../src/lib/clock.js';
import { recordEvent } from '../../src/modules/events/events.service.js';
import { createStore } from '../../src/modules/stores/stores.service.js';
import { embeddedTemplate, openTestDatabase, type TestDatabase } from '../support/database.js';
import { startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { insertEndpoint, Receiver, waitUntil } from '../webhooks/delivery-support.js';

/**
 * SIGTERM under load, against the real server process: it stops accepting, answers what it
 * had accepted (a request still sending its body included), gives the job round under way
 * until SHUTDOWN_TIMEOUT_MS, hands back the webhook
 * claims it could not finish, and exits 0.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);
// Long enough for the request in flight on a loaded machine, shorter than the webhook timeout (10 s).
const DEADLINE_MS = 5_000;
const LOOPS = 12;

type Outcome = 'ok' | 'refused' | 'failed';

describe('graceful shutdown of a server process', () => {
  let testDb: TestDatabase | undefined;
  let dataDir: string | undefined;
  let env: Record<string, string>;
  let receiver: Receiver;
  let server: ServiceProcess | undefined;
  let storeId: string;
  let apiKey: string;

  /** The server's database, opened by the test: on the embedded one only while no server runs. */
  const open = async (): Promise<Database> => testDb ?? openDatabase({ dataDir: dataDir! });
  const release = async (db: Database) => {
    if (!testDb) await db.close();
  };

  beforeAll(async () => {
    receiver = await Receiver.start();
    if (onPostgres) {
      testDb = await openTestDatabase();
      env = { DATABASE_URL: testDb.url! };
    } else {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'billing-shutdown-'));
      await (await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() })).close();
      env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    }
    const db = await open();
    const store = await createStore(db.prisma, { name: 'Shutdown' });
    storeId = store.id;
    apiKey = store.test_api_key;
    // A webhook endpoint that never answers: the round sending to it is under way at SIGTERM.
    receiver.behaviour = () => 'hang';
    await insertEndpoint(db.prisma, { storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    const ctx: RequestContext = { data: dataScope(db.prisma), storeId, mode: 'test', clock: new ManualClock(Date.now() - 1000), traceId: 't', source: 'test', baseUrl: 'http://x' };
    await inTransaction(ctx, (tx) => recordEvent(tx, 'checkout.completed', { id: 'ch_shutdown', object: 'checkout' }));
    await release(db);
  }, 60_000);

  afterAll(async () => {
    await server?.stop('SIGKILL');
    await receiver?.close();
    await testDb?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('finishes what it accepted, fails nothing it accepted, hands back the unfinished webhook claim and exits 0', async () => {
    server = await startServiceProcess('server', { ...env, SHUTDOWN_TIMEOUT_MS: String(DEADLINE_MS) });
    const s = server;
    const call = (method: string, url: string, body?: unknown) =>
      fetch(`${s.testUrl}${url}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const product = await (await call('POST', '/v1/products', { name: 'Load', price: 1000, currency: 'EUR', billing_type: 'onetime' })).json();
    expect(product.id).toMatch(/^prod_/);
    // The worker's round is sending the delivery (the receiver holds it open).
    await receiver.waitFor((r) => r.length === 1);

    // Load: loops of reads and writes, each on a keep-alive connection of its own, until the
    // server refuses a connection. A request on a connection the server had been answering
    // must never fail; a new connection may be refused, or reset when it reached the kernel's
    // accept queue as the listening socket closed (TCP's doing: the application never saw it).
    const outcomes: Record<Outcome, number> = { ok: 0, refused: 0, failed: 0 };
    const problems: string[] = [];
    let sigtermAt = Infinity;
    let okAfterSigterm = 0;
    const loop = async (n: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        for (let i = 0; ; i++) {
          const answer = await send(`${s.testUrl}${i % 3 === 0 ? '/v1/customers' : `/v1/products/${product.id}`}`, agent, apiKey, i % 3 === 0 ? { email: `load-${n}-${i}@example.com` } : undefined);
          let outcome: Outcome;
          if ('status' in answer) {
            outcome = answer.status === 200 ? 'ok' : 'failed';
            if (outcome === 'failed') problems.push(`answered ${answer.status}`);
            else if (Date.now() > sigtermAt) okAfterSigterm++;
          } else {
            const notAccepted = answer.code === 'ECONNREFUSED' || (!answer.reusedSocket && answer.code === 'ECONNRESET');
            outcome = notAccepted ? 'refused' : 'failed';
            if (outcome === 'failed') problems.push(`${answer.code} on a ${answer.reusedSocket ? 'kept-alive' : 'new'} connection`);
          }
          outcomes[outcome]++;
          if (outcome !== 'ok') return;
        }
      } finally {
        agent.destroy();
      }
    };
    const ready = await fetch(`${s.testUrl}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200, body: { ready: true, database: 'ok', migrations: 'applied', worker: 'running', shutting_down: false } });
    // A request still sending its body when SIGTERM arrives: started first, so that the server
    // has its headers (the request is accepted) well before the load and the signal.
    const slow = slowPost(`${s.testUrl}/v1/customers`, apiKey, { email: 'slow@example.com' });
    await slow.headersSent;
    await new Promise((r) => setTimeout(r, 500));
    const loops = Array.from({ length: LOOPS }, (_, n) => loop(n));
    await new Promise((r) => setTimeout(r, 1000));
    sigtermAt = Date.now();
    s.child.kill('SIGTERM');
    // The rest of the body once the server drains (it logs that it is shutting down).
    await waitUntil(() => s.output().includes('"msg":"shutting down"'), { what: () => 'the server to start shutting down' });
    slow.finish();
    const slowAnswer = await slow.answer.catch(async (err: unknown) => {
      const exit = await s.exited;
      throw new Error(`the request in flight at SIGTERM failed: ${String(err)} at ${Date.now()} (SIGTERM at ${sigtermAt}); exit ${JSON.stringify(exit)}\n${s.output().split('\n').filter((l) => !l.includes('"msg":"request"') || Number(/"time":(\d+)/.exec(l)?.[1]) > sigtermAt - 400).join('\n')}`);
    });
    expect(slowAnswer.status).toBe(200);
    expect(slowAnswer.headers.connection).toBe('close');

    const exit = await s.exited;
    await Promise.all(loops);
    expect(exit, s.output()).toEqual({ code: 0, signal: null });
    expect(problems).toEqual([]);
    expect(outcomes.failed).toBe(0);
    expect(outcomes.ok).toBeGreaterThan(LOOPS);
    expect(outcomes.refused).toBe(LOOPS);
    expect(s.output()).not.toMatch(/"level":50/);
    expect(okAfterSigterm).toBeGreaterThan(0);
    expect(s.output()).toMatch(/job rounds still under way at the shutdown deadline/);

    // The delivery the round could not finish is due again, its attempt not counted: no lease is left held.
    const db = await open();
    try {
      const rows = await db.prisma.webhookDelivery.findMany({ where: { storeId } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ status: 'pending', attemptCount: 0 });
      expect(rows[0]!.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
      const leased = await db.prisma.job.count({ where: { status: 'pending', attemptCount: { gt: 0 }, nextAttemptAt: { gt: new Date() } } });
      expect(leased).toBe(0);
      expect(await db.prisma.customer.count({ where: { storeId, email: 'slow@example.com' } })).toBe(1);
    } finally {
      await release(db);
    }
  }, 60_000);
});

type Sent = { status: number } | { code: string | undefined; reusedSocket: boolean };

/** One request on the loop's keep-alive agent: its status, or how it failed and on which kind of connection. */
function send(url: string, agent: http.Agent, key: string, body?: unknown): Promise<Sent> {
  return new Promise((resolve) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { agent, method: text ? 'POST' : 'GET', headers: { 'x-api-key': key, ...(text ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode! }));
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code, reusedSocket: req.reusedSocket }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code, reusedSocket: req.reusedSocket }));
    req.end(text);
  });
}

/** A POST that sends its headers and half its body now, the rest when `finish()` is called. */
function slowPost(url: string, key: string, body: unknown) {
  const text = JSON.stringify(body);
  const req = http.request(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } });
  const half = Math.floor(text.length / 2);
  const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  const headersSent = new Promise<void>((resolve) => req.write(text.slice(0, half), () => resolve()));
  return { headersSent, answer, finish: () => req.end(text.slice(half)) };
}
