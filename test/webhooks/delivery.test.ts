import { createHmac } from 'node:crypto';
import { verifyWebhookSignature } from 'creem/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { ManualClock } from '../../src/lib/clock.js';
import { deliveryBody } from '../../src/modules/webhooks/signing.js';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { startTestService, type TestService } from '../support/service.js';
import { insertEndpoint, Receiver } from './delivery-support.js';

const CHECKOUT_EVENTS = ['checkout.completed', 'subscription.active', 'subscription.trialing', 'subscription.paid'];

let service: TestService;
let receiver: Receiver;
let seller: RequestContext;
let storeId: string;
let secret: string;
let otherReceiver: Receiver;

beforeAll(async () => {
  // The Standard Webhooks verifier compares webhook-timestamp with the real time.
  service = await startTestService({ clock: new ManualClock(Date.now()) });
  receiver = await Receiver.start();
  otherReceiver = await Receiver.start();
  const store = await service.createStore('Seller');
  storeId = store.id;
  seller = service.contextOf(store, 'test');
  ({ secret } = await insertEndpoint(service.db.prisma, { storeId, mode: 'test', url: receiver.url, events: CHECKOUT_EVENTS }));
  // None of these may ever be POSTed to: pull mode, disabled, deleted, not subscribed, another store.
  const db = service.db.prisma;
  await insertEndpoint(db, { storeId, mode: 'test', url: otherReceiver.url, events: CHECKOUT_EVENTS, deliveryMode: 'cli' });
  await insertEndpoint(db, { storeId, mode: 'test', url: otherReceiver.url, events: CHECKOUT_EVENTS, enabled: false });
  const deleted = await insertEndpoint(db, { storeId, mode: 'test', url: otherReceiver.url, events: CHECKOUT_EVENTS });
  await db.webhookEndpoint.update({ where: { id: deleted.id }, data: { deletedAt: new Date() } });
  await insertEndpoint(db, { storeId, mode: 'test', url: otherReceiver.url, events: ['refund.created'] });
  const otherStore = await service.createStore('Other seller');
  await insertEndpoint(db, { storeId: otherStore.id, mode: 'test', url: otherReceiver.url, events: CHECKOUT_EVENTS });
});
afterAll(async () => {
  await service?.close();
  await receiver?.close();
  await otherReceiver?.close();
});

/** A product bought and paid for (in this service, so its in-process job runner delivers the events). */
async function buy(product: Record<string, unknown>, email: string) {
  const p = await makeProduct(seller, product);
  const paid = await makePaidCheckout(seller, p.id, { buyer: { email } });
  expect(paid.status).toBe('completed');
}

describe('HTTP delivery by the in-process job runner', () => {
  it('delivers every event of real purchases, each verified by the official client and by a plain HMAC of service-signature', async () => {
    await buy({ name: 'E-book', price: 1500, billing_type: 'onetime', billing_period: 'once' }, 'one@example.com');
    await buy({ name: 'Pro', price: 2900, billing_type: 'recurring', billing_period: 'every-month' }, 'monthly@example.com');
    await buy({ name: 'Team', price: 4900, billing_type: 'recurring', billing_period: 'every-year', trial_period_days: 14 }, 'trial@example.com');

    const events = await service.db.prisma.event.findMany({ where: { storeId, mode: 'test' }, orderBy: { id: 'asc' } });
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(CHECKOUT_EVENTS));
    await receiver.waitFor((got) => got.length >= events.length);

    const byId = new Map(events.map((e) => [e.id, e]));
    const seen = new Set<string>();
    for (const got of receiver.received) {
      await expect(verifyWebhookSignature(got.body, got.headers as Record<string, string>, secret)).resolves.toBeUndefined();
      expect(createHmac('sha256', secret).update(got.body).digest('hex')).toBe(got.headers['service-signature']);
      expect(got.headers['content-type']).toBe('application/json');
      const event = byId.get(String(got.headers['webhook-id']))!;
      expect(event).toBeDefined();
      // Exactly the body pull mode hands out for the same event.
      expect(got.body).toBe(deliveryBody(event));
      const parsed = JSON.parse(got.body);
      expect(parsed).toMatchObject({ id: event.id, eventType: event.type, created_at: event.createdAt.getTime() });
      seen.add(event.id);
    }
    expect(seen.size).toBe(events.length);
    expect(receiver.received).toHaveLength(events.length);
    // Oldest first for one endpoint: the worker sends in event order when nothing failed.
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(events.map((e) => e.id));

    const deliveries = await service.db.prisma.webhookDelivery.findMany({ where: { endpoint: { url: receiver.url } }, include: { attempts: true } });
    expect(deliveries).toHaveLength(events.length);
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attemptCount: 1 });
      expect(d.completedAt).not.toBeNull();
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ statusCode: 200, error: null, responseExcerpt: 'ok', source: 'http' });
    }
    expect(otherReceiver.received).toHaveLength(0);
  });
});
