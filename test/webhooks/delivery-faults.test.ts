import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/tenant.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/logger.js';
import { recordEvent } from '../../src/modules/events/events.service.js';
import { RETRY_DELAYS_MS, webhookDeliveries } from '../../src/modules/webhooks/delivery-worker.js';
import { configureWebhookSecretKey } from '../../src/modules/webhooks/endpoint-secrets.js';
import { resendEventOp } from '../../src/modules/webhooks/webhooks.operations.js';
import type { RequestContext } from '../../src/context.js';
import { perform, storeContext } from '../support/context.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { closedPort, insertEndpoint, Receiver } from './delivery-support.js';

let db: TestDatabase;
let ctx: RequestContext & { clock: ManualClock };
let clock: ManualClock;
let receiver: Receiver;
const logger = createLogger('silent');

beforeAll(async () => {
  // Production endpoints need the key that seals their secrets.
  configureWebhookSecretKey(randomBytes(32));
  db = await openTestDatabase();
});
afterAll(async () => {
  await db?.close();
  configureWebhookSecretKey(undefined);
});
beforeEach(async () => {
  clock = new ManualClock(Date.now());
  ctx = await storeContext(db, 'test', clock);
  receiver = await Receiver.start();
});
afterEach(() => receiver.close());

/** A job runner with webhook delivery as its only kind; `runOnce()` answers how many deliveries it claimed. */
class Worker {
  private readonly runner: JobRunner;
  constructor(opts: { timeoutMs?: number; allowPrivateUrls?: boolean; batchSize?: number }) {
    const kind = webhookDeliveries({ clock, logger, allowPrivateUrls: opts.allowPrivateUrls ?? false, timeoutMs: opts.timeoutMs, batchSize: opts.batchSize });
    this.runner = new JobRunner({ db: db.prisma, clock, logger, kinds: [kind] });
  }
  async runOnce(): Promise<number> {
    return (await this.runner.runOnce()).webhooks!;
  }
}

const worker = (opts: { timeoutMs?: number; allowPrivateUrls?: boolean; batchSize?: number } = {}) => new Worker(opts);

async function emit(c: RequestContext = ctx) {
  return inTransaction(c, (tx) => recordEvent(tx, 'checkout.completed', { id: 'ch_1', object: 'checkout', status: 'completed' }));
}

async function deliveryOf(eventId: string) {
  return db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId }, include: { attempts: { orderBy: { attemptedAt: 'asc' } } } });
}

/** Moves the clock to `at` in two steps, checking nothing is sent a millisecond early. */
async function runAt(w: Worker, at: number): Promise<number> {
  clock.set(at - 1);
  expect(await w.runOnce()).toBe(0);
  clock.set(at);
  return w.runOnce();
}

describe('retries', () => {
  it('500 twice, then 200: attempts at t0, t0+30 s and t0+30 s+1 min, the event arrives once', async () => {
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    receiver.behaviour = (n) => (n < 2 ? { status: 500, body: 'E'.repeat(2000) } : { status: 200, body: 'thanks' });
    const event = await emit();
    const w = worker();
    const t0 = clock.now().getTime();

    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    expect(await runAt(w, t0 + 30_000)).toBe(1);
    expect(await runAt(w, t0 + 90_000)).toBe(1);
    clock.advance(24 * 3_600_000);
    expect(await w.runOnce()).toBe(0);

    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([event.id, event.id, event.id]);
    expect(new Set(receiver.received.map((r) => r.body)).size).toBe(1);
    const d = await deliveryOf(event.id);
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 3, completedAt: new Date(t0 + 90_000) });
    expect(d.attempts.map((a) => a.attemptedAt.getTime())).toEqual([t0, t0 + 30_000, t0 + 90_000]);
    expect(d.attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(d.attempts[0]!.responseExcerpt).toBe('E'.repeat(500));
    expect(d.attempts[0]!.error).toBe('receiver answered 500');
    expect(d.attempts[2]).toMatchObject({ responseExcerpt: 'thanks', error: null, source: 'http' });
    for (const a of d.attempts) expect(a.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('receiver down longer than the schedule: 5 attempts, failed; resent by hand, delivered once it is up', async () => {
    const port = await closedPort();
    const endpoint = await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: `http://127.0.0.1:${port}/hook`, events: ['checkout.completed'] });
    const event = await emit();
    const w = worker();
    const t0 = clock.now().getTime();
    let at = t0;
    expect(await w.runOnce()).toBe(1);
    for (const delay of RETRY_DELAYS_MS) expect(await runAt(w, (at += delay))).toBe(1);
    clock.advance(7 * 24 * 3_600_000);
    expect(await w.runOnce()).toBe(0);

    const failed = await deliveryOf(event.id);
    expect(failed).toMatchObject({ status: 'failed', attemptCount: 5, completedAt: new Date(at) });
    expect(failed.attempts.map((a) => a.attemptedAt.getTime())).toEqual([t0, t0 + 30_000, t0 + 90_000, t0 + 390_000, t0 + 3_990_000]);
    for (const a of failed.attempts) {
      expect(a.statusCode).toBeNull();
      expect(a.error).toMatch(/ECONNREFUSED/);
    }

    const up = await Receiver.start(port);
    try {
      await perform(ctx, resendEventOp, { id: endpoint.id, event_id: event.id });
      expect(await w.runOnce()).toBe(1);
      expect(up.received).toHaveLength(1);
      expect(up.received[0]!.headers['webhook-id']).toBe(event.id);
      const resent = await deliveryOf(event.id);
      expect(resent).toMatchObject({ status: 'succeeded', attemptCount: 1 });
      expect(resent.attempts.map((a) => a.statusCode)).toEqual([null, null, null, null, null, 200]);
    } finally {
      await up.close();
    }
  });

  it('a receiver that never answers times out: the attempt is recorded as failed and retried after 30 s', async () => {
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    receiver.behaviour = (n) => (n === 0 ? 'hang' : { status: 200 });
    const event = await emit();
    const w = worker({ timeoutMs: 300 });
    const t0 = clock.now().getTime();
    expect(await w.runOnce()).toBe(1);
    const d = await deliveryOf(event.id);
    expect(d).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: new Date(t0 + 30_000) });
    expect(d.attempts[0]).toMatchObject({ statusCode: null, error: 'no answer within 300 ms (timeout)' });
    expect(d.attempts[0]!.durationMs).toBeGreaterThanOrEqual(290);
    expect(await runAt(w, t0 + 30_000)).toBe(1);
    expect((await deliveryOf(event.id)).status).toBe('succeeded');
  });

  it('other 2xx and redirects are not a 200: retried, and a redirect is not followed', async () => {
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    receiver.behaviour = (n) => (n === 0 ? { status: 204 } : n === 1 ? { status: 302 } : { status: 200 });
    const event = await emit();
    const w = worker();
    const t0 = clock.now().getTime();
    await w.runOnce();
    await runAt(w, t0 + 30_000);
    await runAt(w, t0 + 90_000);
    expect(receiver.received).toHaveLength(3);
    expect((await deliveryOf(event.id)).attempts.map((a) => a.statusCode)).toEqual([204, 302, 200]);
  });
});

describe('leases', () => {
  it('a claim whose worker stalls expires: another worker sends again, the stale outcome does not move the row back', async () => {
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    receiver.behaviour = (n) => (n === 0 ? 'hang' : { status: 200 });
    const event = await emit();
    // Batches of one: the lease covers what a round may take, one attempt per claimed row.
    const stalled = worker({ timeoutMs: 1_500, batchSize: 1 });
    const other = worker({ timeoutMs: 1_500, batchSize: 1 });
    const t0 = clock.now().getTime();
    const first = stalled.runOnce();
    await receiver.waitFor((r) => r.length === 1);
    // Leased to the stalled worker: its round's attempt time (1 row × 1.5 s) plus a 30 s margin.
    expect(await other.runOnce()).toBe(0);
    expect(await runAt(other, t0 + 1_500 + 30_000)).toBe(1);
    expect(await first).toBe(1);
    const d = await deliveryOf(event.id);
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(d.attempts.map((a) => a.statusCode).sort()).toEqual([200, null]);
    expect(receiver.received).toHaveLength(2);
  });
});

describe('production endpoints and SSRF', () => {
  it('refuses to deliver to a loopback address unless private URLs are allowed; the refusal is a recorded attempt', async () => {
    const prodCtx = { ...ctx, mode: 'prod' as const };
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'prod', url: receiver.url, events: ['checkout.completed'] });
    const event = await emit(prodCtx);
    const t0 = clock.now().getTime();
    expect(await worker().runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(0);
    const refused = await deliveryOf(event.id);
    expect(refused.status).toBe('pending');
    expect(refused.attempts[0]).toMatchObject({ statusCode: null });
    expect(refused.attempts[0]!.error).toMatch(/loopback/);

    clock.set(t0 + 30_000);
    expect(await worker({ allowPrivateUrls: true }).runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    expect((await deliveryOf(event.id)).status).toBe('succeeded');
  });
});
