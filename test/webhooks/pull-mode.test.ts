import { createHmac } from 'node:crypto';
import { Creem } from 'creem';
import { parseWebhookEventEntity, verifyWebhookSignature } from 'creem/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/tenant.js';
import { EVENT_TYPES, recordEvent, type EventType } from '../../src/modules/events/events.service.js';
import { deliveryBody, generateSigningSecret, signDelivery } from '../../src/modules/webhooks/signing.js';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { insertEndpoint } from './delivery-support.js';

let service: TestService;
let storeId: string;
let key: string;
let prodKey: string;
let client: Creem;
let rest: ReturnType<typeof api>;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Pull store');
  storeId = store.id;
  key = store.test_api_key;
  prodKey = store.prod_api_key;
  client = new Creem({ apiKey: key, serverURL: service.testUrl });
  rest = api(service.testUrl, key);
});
afterAll(() => service?.close());

/** An endpoint as the endpoints API stores it: secret sealed with the service's key. */
function createEndpoint(options: { deliveryMode?: 'cli' | 'http'; events?: readonly string[]; store?: string } = {}) {
  return insertEndpoint(service.db.prisma, {
    storeId: options.store ?? storeId,
    mode: 'test',
    url: 'http://localhost:3000/webhooks',
    events: [...(options.events ?? EVENT_TYPES)],
    deliveryMode: options.deliveryMode ?? 'cli',
  });
}

/** Emits events the way every change does: recordEvent inside a transaction. */
async function emit(count: number, type: EventType = 'subscription.update', store = storeId) {
  const ids: string[] = [];
  const ctx = service.contextOf({ id: store }, 'test');
  for (let i = 0; i < count; i++) {
    const event = await inTransaction(ctx, (tx) => recordEvent(tx, type, { id: `sub_${i}`, n: i }));
    ids.push(event.id);
  }
  return ids;
}

const attemptsOf = (endpointId: string, eventId: string) =>
  service.db.prisma.deliveryAttempt.findMany({ where: { delivery: { endpointId, eventId } }, orderBy: { attemptedAt: 'asc' } });

describe('pull mode end to end', () => {
  it('a purchase waits as a pending event whose body and headers are those of an HTTP delivery; 500 keeps it, 200 removes it', async () => {
    const created = await client.webhooks.create({ deliveryMode: 'cli', events: ['checkout.completed'], name: 'laptop' });
    const endpoint = { id: created.id, secret: (await client.webhooks.getSecret(created.id)).secret };
    expect(endpoint.secret).toBe(created.secret);
    const seller = service.contextOf({ id: storeId }, 'test');
    const product = await makeProduct(seller, { name: 'Book', description: 'A book', price: 900, billing_type: 'onetime', billing_period: 'once' });
    const checkout = await makePaidCheckout(seller, product.id);

    const pending = await client.webhooks.listPendingEvents(endpoint.id);
    expect(pending.items).toHaveLength(1);
    const item = pending.items[0]!;
    const event = await service.db.prisma.event.findUniqueOrThrow({ where: { id: item.id } });
    const delivery = await service.db.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id, endpointId: endpoint.id } });
    expect(item).toMatchObject({ object: 'webhook_event', eventType: 'checkout.completed', createdAt: delivery.createdAt });

    // Exactly what the HTTP worker would send: same body string and, for the same second, same headers.
    expect(item.body).toBe(deliveryBody({ id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload }));
    const signedAt = new Date(Number(item.headers['webhook-timestamp']) * 1000);
    expect(item.headers).toEqual(signDelivery({ id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload }, endpoint.secret, signedAt).headers);
    await expect(verifyWebhookSignature(item.body, item.headers, endpoint.secret)).resolves.toBeUndefined();
    await expect(verifyWebhookSignature(item.body, item.headers, generateSigningSecret())).rejects.toThrow(/signature/i);
    expect(item.headers['service-signature']).toBe(createHmac('sha256', endpoint.secret).update(item.body).digest('hex'));
    const parsed = parseWebhookEventEntity(item.body);
    expect(parsed).toMatchObject({ id: event.id, eventType: 'checkout.completed', object: { id: checkout.id, status: 'completed' } });

    const failed = await client.webhooks.acknowledgeEvent(endpoint.id, item.id, { statusCode: 500, responseBody: 'boom' });
    expect(failed).toEqual({ id: item.id, object: 'webhook_event_ack', success: false });
    expect((await client.webhooks.listPendingEvents(endpoint.id)).items.map((i) => i.id)).toEqual([item.id]);
    expect(await attemptsOf(endpoint.id, item.id)).toMatchObject([{ source: 'ack', statusCode: 500, responseExcerpt: 'boom' }]);

    const ok = await client.webhooks.acknowledgeEvent(endpoint.id, item.id, { statusCode: 200, responseBody: 'thanks' });
    expect(ok).toEqual({ id: item.id, object: 'webhook_event_ack', success: true });
    expect((await client.webhooks.listPendingEvents(endpoint.id)).items).toEqual([]);
    expect(await service.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({ status: 'succeeded', attemptCount: 2, completedAt: expect.any(Date) });

    // Repeats return the stored result and record nothing, whatever status they carry.
    expect(await client.webhooks.acknowledgeEvent(endpoint.id, item.id, { statusCode: 200 })).toMatchObject({ success: true });
    expect(await client.webhooks.acknowledgeEvent(endpoint.id, item.id, { statusCode: 500 })).toMatchObject({ success: true });
    expect(await attemptsOf(endpoint.id, item.id)).toMatchObject([
      { source: 'ack', statusCode: 500, responseExcerpt: 'boom' },
      { source: 'ack', statusCode: 200, responseExcerpt: 'thanks' },
    ]);
  });

  it('only a 200 completes the delivery: 204 and 301 keep the event pending', async () => {
    const endpoint = await createEndpoint();
    const [eventId] = await emit(1);
    for (const status_code of [204, 301]) {
      const res = await rest('POST', `/v1/webhooks/${endpoint.id}/events/${eventId}/ack`, { status_code });
      expect(res.json).toEqual({ id: eventId, object: 'webhook_event_ack', success: false });
    }
    expect((await rest('GET', `/v1/webhooks/${endpoint.id}/events/pending`)).json.items.map((i: { id: string }) => i.id)).toEqual([eventId]);
    expect((await attemptsOf(endpoint.id, eventId!)).map((a) => a.statusCode)).toEqual([204, 301]);
  });
});

describe('pending list', () => {
  it('is oldest first, 50 by default, up to limit (1..100); other limits are refused naming limit', async () => {
    const endpoint = await createEndpoint();
    const ids = await emit(55);
    const pending = (q = '') => rest('GET', `/v1/webhooks/${endpoint.id}/events/pending${q}`);
    expect((await pending()).json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 50));
    expect((await pending('?limit=100')).json.items.map((i: { id: string }) => i.id)).toEqual(ids);
    expect((await pending('?limit=1')).json.items.map((i: { id: string }) => i.id)).toEqual(ids.slice(0, 1));
    for (const bad of ['0', '101', '-1', '2.5', 'abc', '']) {
      const res = await pending(`?limit=${bad}`);
      expect(res.status, `limit=${bad}`).toBe(400);
      expect(res.json.message.join(' '), `limit=${bad}`).toContain('limit');
    }
  });

  it('holds only this endpoint’s pending deliveries: unsubscribed types and other stores’ events are absent', async () => {
    const endpoint = await createEndpoint({ events: ['subscription.paid'] });
    const other = await service.createStore('Other');
    await createEndpoint({ store: other.id, events: ['subscription.paid'] });
    await emit(1, 'subscription.canceled');
    await emit(1, 'subscription.paid', other.id);
    const [paid] = await emit(1, 'subscription.paid');
    const res = await client.webhooks.listPendingEvents(endpoint.id, 100);
    expect(res.items.map((i) => [i.id, i.eventType])).toEqual([[paid, 'subscription.paid']]);
  });

  it('refuses an http endpoint with 400 and answers 404 for unknown, deleted, foreign-store and other-environment endpoints', async () => {
    const http = await createEndpoint({ deliveryMode: 'http' });
    const [eventId] = await emit(1);
    for (const res of [await rest('GET', `/v1/webhooks/${http.id}/events/pending`), await rest('POST', `/v1/webhooks/${http.id}/events/${eventId}/ack`, { status_code: 200 })]) {
      expect(res.status).toBe(400);
      expect(res.json.message.join(' ')).toContain('delivery_mode');
    }
    // The refused acknowledgement left the http delivery to the worker (which may be trying it meanwhile).
    expect(await service.db.prisma.deliveryAttempt.count({ where: { delivery: { endpointId: http.id }, source: 'ack' } })).toBe(0);
    expect((await service.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: http.id } })).status).not.toBe('succeeded');

    const cli = await createEndpoint();
    const deleted = await createEndpoint();
    await service.db.prisma.webhookEndpoint.update({ where: { id: deleted.id }, data: { deletedAt: new Date() } });
    const foreign = await service.createStore('Foreign');
    // The same store's production key: the endpoint belongs to the test environment only.
    const prod = api(service.prodUrl, prodKey);
    const cases: [ReturnType<typeof api>, string][] = [
      [rest, 'wh_unknown'],
      [rest, deleted.id],
      [api(service.testUrl, foreign.test_api_key), cli.id],
      [prod, cli.id],
    ];
    for (const [caller, id] of cases) {
      expect((await caller('GET', `/v1/webhooks/${id}/events/pending`)).status, id).toBe(404);
      expect((await caller('POST', `/v1/webhooks/${id}/events/${eventId}/ack`, { status_code: 200 })).status, id).toBe(404);
    }
  });
});

describe('acknowledgements', () => {
  it('404 for an event that is not pending for this endpoint; 400 naming the field for bad bodies; nothing written', async () => {
    const a = await createEndpoint();
    const b = await createEndpoint({ events: ['subscription.paid'] });
    const [onlyA] = await emit(1, 'subscription.update');
    expect((await rest('POST', `/v1/webhooks/${a.id}/events/evt_unknown/ack`, { status_code: 200 })).status).toBe(404);
    expect((await rest('POST', `/v1/webhooks/${b.id}/events/${onlyA}/ack`, { status_code: 200 })).status).toBe(404);

    const bad: [unknown, string][] = [
      [{}, 'status_code'],
      [{ status_code: '200' }, 'status_code'],
      [{ status_code: 99 }, 'status_code'],
      [{ status_code: 600 }, 'status_code'],
      [{ status_code: 200.5 }, 'status_code'],
      [{ status_code: 200, response_body: 5 }, 'response_body'],
      [{ status_code: 200, extra: true }, 'extra'],
    ];
    for (const [body, field] of bad) {
      const res = await rest('POST', `/v1/webhooks/${a.id}/events/${onlyA}/ack`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message.join(' '), JSON.stringify(body)).toContain(field);
    }
    expect(await attemptsOf(a.id, onlyA!)).toEqual([]);
    expect(await service.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: a.id, eventId: onlyA } })).toMatchObject({ status: 'pending', attemptCount: 0 });
  });

  it('keeps the first 10,000 characters of a long response body', async () => {
    const endpoint = await createEndpoint();
    const [eventId] = await emit(1);
    const res = await rest('POST', `/v1/webhooks/${endpoint.id}/events/${eventId}/ack`, { status_code: 500, response_body: 'x'.repeat(30_000) });
    expect(res.status).toBe(200);
    expect((await attemptsOf(endpoint.id, eventId!))[0]!.responseExcerpt).toHaveLength(10_000);
  });

  it('concurrent 200 acknowledgements of one event complete it once and record one attempt', async () => {
    const endpoint = await createEndpoint();
    const [eventId] = await emit(1);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => rest('POST', `/v1/webhooks/${endpoint.id}/events/${eventId}/ack`, { status_code: 200, response_body: `ack ${i}` })),
    );
    for (const a of answers) expect(a.json).toEqual({ id: eventId, object: 'webhook_event_ack', success: true });
    expect(await attemptsOf(endpoint.id, eventId!)).toHaveLength(1);
    expect(await service.db.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id, eventId } })).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  });
});
