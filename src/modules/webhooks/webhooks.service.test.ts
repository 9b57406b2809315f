import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../context.js';
import { dataScope, inTransaction } from '../../db/tenant.js';
import type { ManualClock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { perform, storeContext } from '../../../test/support/context.js';
import { EVENT_TYPES, recordEvent, type EventType } from '../events/events.service.js';
import { configureWebhookSecretKey, openSigningSecret } from './endpoint-secrets.js';
import { configureWebhookUrlPolicy } from './url-safety.js';
import { serializeDelivery, serializeWebhook } from './webhooks.serializer.js';
import {
  createWebhookOp,
  deleteWebhookOp,
  getWebhookOp,
  getWebhookSecretOp,
  listDeliveriesOp,
  listWebhooksOp,
  resendEventOp,
  rotateWebhookSecretOp,
  updateWebhookOp,
} from './webhooks.operations.js';

// The operations as the transports run them: raw input validated by the operation's schema
// (URL checks before the write), writes in one transaction.
const createWebhook = (c: RequestContext, raw: unknown) => perform(c, createWebhookOp, raw);
const getWebhook = (c: RequestContext, id: string) => perform(c, getWebhookOp, { id });
const updateWebhook = (c: RequestContext, id: string, patch: Record<string, unknown>) => perform(c, updateWebhookOp, { ...patch, id });
const deleteWebhook = (c: RequestContext, id: string) => perform(c, deleteWebhookOp, { id });
const getWebhookSecret = async (c: RequestContext, id: string) => (await perform(c, getWebhookSecretOp, { id })).secret;
const rotateWebhookSecret = (c: RequestContext, id: string) => perform(c, rotateWebhookSecretOp, { id });
const listWebhooks = (c: RequestContext, query: Record<string, unknown>) => perform(c, listWebhooksOp, query);
const listDeliveries = (c: RequestContext, id: string, query: Record<string, unknown>) => perform(c, listDeliveriesOp, { ...query, id });
const resendEvent = (c: RequestContext, raw: { id: string; event_id: string }) => perform(c, resendEventOp, raw);

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

type Ctx = RequestContext & { clock: ManualClock };

describe('webhook endpoints service', () => {
  let db: TestDatabase;
  let ctx: Ctx;
  let prod: Ctx;
  let other: Ctx;

  const emit = (c: Ctx, type: EventType = 'checkout.completed') =>
    inTransaction(c, (tx) => recordEvent(tx, type, { id: newId('checkout'), object: 'checkout' }));

  beforeAll(async () => {
    db = await openTestDatabase();
    ctx = await storeContext(db, 'test');
    prod = { ...ctx, mode: 'prod' };
    other = await storeContext(db, 'test');
  });
  afterAll(() => db?.close());
  afterEach(() => {
    configureWebhookSecretKey(undefined);
    configureWebhookUrlPolicy({ allowPrivateUrls: false });
  });

  it('creates an endpoint with a generated secret stored only encrypted', async () => {
    const { endpoint, secret } = await createWebhook(ctx, { url: 'http://localhost:3000/hooks', name: 'Local', events: ['checkout.completed', 'subscription.paid', 'checkout.completed'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ mode: 'test', url: 'http://localhost:3000/hooks', deliveryMode: 'http', enabled: true, events: ['checkout.completed', 'subscription.paid'] });
    const row = await db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secretCiphertext).not.toContain(secret);
    expect(row.secretCiphertext).not.toContain(secret.slice('whsec_'.length, 20));
    expect(await openSigningSecret(dataScope(db.prisma), 'test', row.secretCiphertext)).toBe(secret);
    expect(await getWebhookSecret(ctx, endpoint.id)).toBe(secret);
    // The entity only carries the secret when asked to (create, rotate).
    expect(serializeWebhook(endpoint)).not.toHaveProperty('secret');
    expect(serializeWebhook(endpoint, secret)).toMatchObject({ object: 'webhook', status: 'enabled', delivery_mode: 'http', secret });
  });

  it('subscribes to every event type when events are omitted; cli endpoints need no URL', async () => {
    const { endpoint } = await createWebhook(ctx, { delivery_mode: 'cli' });
    expect(endpoint.events).toEqual([...EVENT_TYPES]);
    expect(endpoint.url).toBe('');
    expect(endpoint.name).toBeNull();
  });

  it('rejects bad input naming the field, and writes nothing', async () => {
    const before = await db.prisma.webhookEndpoint.count();
    const cases: [unknown, (string | number)[]][] = [
      [{ url: 'https://example.com/h', events: ['checkout.completed', 'order.shipped'] }, ['events', 1]],
      [{ url: 'https://example.com/h', events: [] }, ['events']],
      [{ events: ['checkout.completed'] }, ['url']],
      [{ url: 'ftp://example.com/h' }, ['url']],
      [{ url: 'https://example.com/h', delivery_mode: 'email' }, ['delivery_mode']],
      [{ url: 'https://example.com/h', name: '   ' }, ['name']],
      [{ url: 'https://example.com/h', secret: 'whsec_mine' }, []],
    ];
    for (const [input, path] of cases) {
      const err = await failure(createWebhook(ctx, input));
      expect(err.code, JSON.stringify(input)).toBe('validation_failed');
      if (path.length) expect(err.issues.map((i) => i.path)).toContainEqual(path);
    }
    expect(await db.prisma.webhookEndpoint.count()).toBe(before);
  });

  describe('production endpoints', () => {
    it('need WEBHOOK_SECRET_KEY: without it creation answers unavailable with a clear message and writes nothing', async () => {
      const before = await db.prisma.webhookEndpoint.count();
      const err = await failure(createWebhook(prod, { url: 'https://93.184.216.34/hook' }));
      expect(err.code).toBe('secret_key_missing');
      expect(err.kind).toBe('unavailable');
      expect(err.message).toMatch(/WEBHOOK_SECRET_KEY is not configured/);
      expect(await db.prisma.webhookEndpoint.count()).toBe(before);

      configureWebhookSecretKey(randomBytes(32));
      const { endpoint, secret } = await createWebhook(prod, { url: 'https://93.184.216.34/hook' });
      expect(endpoint.mode).toBe('prod');
      expect(await getWebhookSecret(prod, endpoint.id)).toBe(secret);
    });

    it('refuse loopback, private, link-local and metadata URLs unless the operator allows them', async () => {
      configureWebhookSecretKey(randomBytes(32));
      const before = await db.prisma.webhookEndpoint.count();
      for (const url of ['http://127.0.0.1/x', 'http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::1]/', 'http://localhost:3000/h']) {
        const err = await failure(createWebhook(prod, { url }));
        expect(err.code, url).toBe('validation_failed');
        expect(err.issues[0]?.path).toEqual(['url']);
      }
      expect(await db.prisma.webhookEndpoint.count()).toBe(before);

      const { endpoint } = await createWebhook(prod, { url: 'https://93.184.216.34/hook' });
      const err = await failure(updateWebhook(prod, endpoint.id, { url: 'http://192.168.0.10/hook' }));
      expect(err.issues[0]?.path).toEqual(['url']);
      expect((await getWebhook(prod, endpoint.id)).url).toBe('https://93.184.216.34/hook');

      configureWebhookUrlPolicy({ allowPrivateUrls: true });
      expect((await createWebhook(prod, { url: 'http://127.0.0.1:4000/x' })).endpoint.url).toBe('http://127.0.0.1:4000/x');
      expect((await updateWebhook(prod, endpoint.id, { url: 'http://192.168.0.10/hook' })).url).toBe('http://192.168.0.10/hook');
    });

    it('do not guard cli endpoints, which the service never connects to', async () => {
      configureWebhookSecretKey(randomBytes(32));
      const { endpoint } = await createWebhook(prod, { delivery_mode: 'cli', url: 'http://localhost:3000/webhooks' });
      expect(endpoint.url).toBe('http://localhost:3000/webhooks');
    });
  });

  it('updates only the supplied fields; null clears the name; disabling stops fan-out', async () => {
    const { endpoint } = await createWebhook(ctx, { url: 'https://example.com/a', name: 'A', events: ['checkout.completed'] });
    ctx.clock.advance(1000);
    const renamed = await updateWebhook(ctx, endpoint.id, { name: null, events: ['subscription.paid', 'checkout.completed'] });
    expect(renamed).toMatchObject({ name: null, url: 'https://example.com/a', enabled: true, events: ['subscription.paid', 'checkout.completed'] });
    expect(renamed.updatedAt.getTime()).toBe(ctx.clock.now().getTime());

    const disabled = await updateWebhook(ctx, endpoint.id, { status: 'disabled' });
    expect(serializeWebhook(disabled).status).toBe('disabled');
    const event = await emit(ctx);
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: event.id, endpointId: endpoint.id } })).toBe(0);

    await updateWebhook(ctx, endpoint.id, { status: 'enabled' });
    const later = await emit(ctx);
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: later.id, endpointId: endpoint.id } })).toBe(1);

    const err = await failure(updateWebhook(ctx, endpoint.id, { status: 'paused', url: 'nope' }));
    expect(err.issues.map((i) => i.path).sort()).toEqual([['status'], ['url']]);
    expect((await failure(updateWebhook(ctx, endpoint.id, { delivery_mode: 'cli' }))).code).toBe('validation_failed');
  });

  it('lists live endpoints newest first with paging', async () => {
    const own = await storeContext(db, 'test');
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await createWebhook(own, { url: `https://example.com/${n}` })).endpoint.id);
    await deleteWebhook(own, ids[1]!);
    const page = await listWebhooks(own, { page_number: '1', page_size: '1' });
    expect(page.items.map((w) => w.id)).toEqual([ids[2]]);
    expect(page.pagination).toMatchObject({ total_records: 2, total_pages: 2, next_page: 2 });
    expect((await listWebhooks(own, { page_number: '2', page_size: '1' })).items.map((w) => w.id)).toEqual([ids[0]]);
  });

  it('delete hides the endpoint, fails its pending deliveries and leaves other endpoints alone', async () => {
    const own = await storeContext(db, 'test');
    const a = (await createWebhook(own, { url: 'https://example.com/a' })).endpoint;
    const b = (await createWebhook(own, { url: 'https://example.com/b' })).endpoint;
    const event = await emit(own);
    own.clock.advance(5000);
    const deleted = await deleteWebhook(own, a.id);
    expect(deleted.deletedAt?.getTime()).toBe(own.clock.now().getTime());
    const deliveries = await db.prisma.webhookDelivery.findMany({ where: { eventId: event.id }, orderBy: { endpointId: 'asc' } });
    expect(Object.fromEntries(deliveries.map((d) => [d.endpointId, d.status]))).toEqual({ [a.id]: 'failed', [b.id]: 'pending' });

    expect((await failure(getWebhook(own, a.id))).code).toBe('not_found');
    expect((await failure(deleteWebhook(own, a.id))).code).toBe('not_found');
    expect((await failure(updateWebhook(own, a.id, { name: 'back' }))).code).toBe('not_found');
    expect((await failure(resendEvent(own, { id: a.id, event_id: event.id }))).code).toBe('not_found');
    const next = await emit(own);
    expect(await db.prisma.webhookDelivery.count({ where: { eventId: next.id, endpointId: a.id } })).toBe(0);
  });

  it('rotation replaces the secret', async () => {
    const { endpoint, secret } = await createWebhook(ctx, { url: 'https://example.com/r' });
    const rotated = await rotateWebhookSecret(ctx, endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(await getWebhookSecret(ctx, endpoint.id)).toBe(rotated.secret);
  });

  describe('resend', () => {
    it('resets a failed delivery to pending, due now, keeping its attempts; other endpoints untouched', async () => {
      const own = await storeContext(db, 'test');
      const a = (await createWebhook(own, { url: 'https://example.com/a' })).endpoint;
      const b = (await createWebhook(own, { url: 'https://example.com/b' })).endpoint;
      const event = await emit(own);
      // What the worker leaves behind after giving up on endpoint a; b succeeded.
      const failedAt = own.clock.now();
      const da = await db.prisma.webhookDelivery.update({
        where: { eventId_endpointId: { eventId: event.id, endpointId: a.id } },
        data: { status: 'failed', attemptCount: 5, completedAt: failedAt },
      });
      await db.prisma.deliveryAttempt.create({
        data: { id: newId('attempt'), storeId: own.storeId, mode: own.mode, deliveryId: da.id, attemptedAt: failedAt, statusCode: 500, durationMs: 12, responseExcerpt: 'boom', source: 'http' },
      });
      const bBefore = await db.prisma.webhookDelivery.update({
        where: { eventId_endpointId: { eventId: event.id, endpointId: b.id } },
        data: { status: 'succeeded', attemptCount: 1, completedAt: failedAt },
      });

      own.clock.advance(3_600_000);
      const resent = await resendEvent(own, { id: a.id, event_id: event.id });
      expect(resent).toMatchObject({ id: da.id, status: 'pending', attemptCount: 0, completedAt: null });
      expect(resent.nextAttemptAt.getTime()).toBe(own.clock.now().getTime());
      expect(resent.attempts).toHaveLength(1);
      expect(serializeDelivery(resent)).toMatchObject({
        object: 'webhook_delivery',
        event_id: event.id,
        event_type: 'checkout.completed',
        endpoint_id: a.id,
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: own.clock.now().toISOString(),
        attempts: [{ status_code: 500, duration_ms: 12, response_excerpt: 'boom', source: 'http', error: null }],
      });
      expect(await db.prisma.deliveryAttempt.count({ where: { deliveryId: da.id } })).toBe(1);
      expect(await db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: bBefore.id } })).toEqual(bBefore);
    });

    it('creates the delivery for a subscribed endpoint that never had one, once even under concurrent resends', async () => {
      const own = await storeContext(db, 'test');
      const event = await emit(own, 'subscription.paid');
      const late = (await createWebhook(own, { url: 'https://example.com/late', events: ['subscription.paid'] })).endpoint;
      const results = await Promise.all(Array.from({ length: 6 }, () => resendEvent(own, { id: late.id, event_id: event.id })));
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(await db.prisma.webhookDelivery.count({ where: { endpointId: late.id } })).toBe(1);

      const unsubscribed = (await createWebhook(own, { url: 'https://example.com/u', events: ['checkout.completed'] })).endpoint;
      const err = await failure(resendEvent(own, { id: unsubscribed.id, event_id: event.id }));
      expect(err.issues[0]?.path).toEqual(['event_id']);
      expect(await db.prisma.webhookDelivery.count({ where: { endpointId: unsubscribed.id } })).toBe(0);
    });

    it('refuses a disabled endpoint and unknown or foreign events', async () => {
      const own = await storeContext(db, 'test');
      const endpoint = (await createWebhook(own, { url: 'https://example.com/d' })).endpoint;
      const event = await emit(own);
      await updateWebhook(own, endpoint.id, { status: 'disabled' });
      expect((await failure(resendEvent(own, { id: endpoint.id, event_id: event.id }))).issues[0]?.path).toEqual(['id']);
      await updateWebhook(own, endpoint.id, { status: 'enabled' });
      const foreign = await emit(other);
      expect((await failure(resendEvent(own, { id: endpoint.id, event_id: foreign.id }))).code).toBe('not_found');
      expect((await failure(resendEvent(own, { id: endpoint.id, event_id: 'evt_missing' }))).code).toBe('not_found');
    });
  });

  it('lists deliveries newest first with attempts, filtered by status', async () => {
    const own = await storeContext(db, 'test');
    const endpoint = (await createWebhook(own, { url: 'https://example.com/l' })).endpoint;
    const first = await emit(own);
    own.clock.advance(1000);
    const second = await emit(own, 'subscription.active');
    await db.prisma.webhookDelivery.updateMany({ where: { eventId: first.id }, data: { status: 'succeeded', attemptCount: 1, completedAt: own.clock.now() } });
    const all = await listDeliveries(own, endpoint.id, {});
    expect(all.items.map((d) => d.eventId)).toEqual([second.id, first.id]);
    expect(serializeDelivery(all.items[1]!)).toMatchObject({ status: 'succeeded', next_attempt_at: null, completed_at: own.clock.now().toISOString() });
    const pending = await listDeliveries(own, endpoint.id, { status: 'pending' });
    expect(pending.items.map((d) => d.eventId)).toEqual([second.id]);
    expect((await failure(listDeliveries(own, endpoint.id, { status: 'lost' }))).issues[0]?.path).toEqual(['status']);
  });

  it('answers not found for another store or the other environment', async () => {
    const { endpoint } = await createWebhook(ctx, { url: 'https://example.com/mine' });
    const event = await emit(ctx);
    for (const c of [other, prod]) {
      expect((await failure(getWebhook(c, endpoint.id))).code).toBe('not_found');
      expect((await failure(updateWebhook(c, endpoint.id, { name: 'x' }))).code).toBe('not_found');
      expect((await failure(getWebhookSecret(c, endpoint.id))).code).toBe('not_found');
      expect((await failure(rotateWebhookSecret(c, endpoint.id))).code).toBe('not_found');
      expect((await failure(listDeliveries(c, endpoint.id, {}))).code).toBe('not_found');
      expect((await failure(resendEvent(c, { id: endpoint.id, event_id: event.id }))).code).toBe('not_found');
      expect((await failure(deleteWebhook(c, endpoint.id))).code).toBe('not_found');
    }
    expect((await getWebhook(ctx, endpoint.id)).deletedAt).toBeNull();
  });
});
