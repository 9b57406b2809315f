import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { Creem } from 'creem';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { contextFor } from '../../src/context.js';
import { dataScope, inTransaction } from '../../src/db/tenant.js';
import { newId } from '../../src/lib/ids.js';
import { recordEvent, type EventType } from '../../src/modules/events/events.service.js';
import { openSigningSecret } from '../../src/modules/webhooks/endpoint-secrets.js';
import { signDelivery } from '../../src/modules/webhooks/signing.js';
import { createStore, type CreatedStore } from '../../src/modules/stores/stores.service.js';
import { startService, type RunningService } from '../../src/service.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { api } from '../support/service.js';

/**
 * The webhook endpoint API through the official client and plain HTTP. Services here run with
 * the job runner off (nothing is sent anywhere) and their own configuration, because the
 * signing-secret key and the private-URL policy are what is under test. They run one after
 * the other: both settings are process-wide, like in a real server.
 */
interface Harness {
  service: RunningService;
  db: TestDatabase;
  store: CreatedStore;
  logs: string[];
  close(): Promise<void>;
}

async function start(env: Record<string, string> = {}): Promise<Harness> {
  const db = await openTestDatabase();
  const config = { ...loadConfig({ HOST: '127.0.0.1', PORT: '0', TEST_PORT: '0', JOB_RUNNER: 'off', ...env }), bodyLimit: '64kb' };
  const logs: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) });
  const service = await startService({ config, logger: pino({ level: 'trace' }, sink), db });
  const store = await createStore(db.prisma, { name: 'Acme' });
  return { service, db, store, logs, close: async () => (await service.close(), await db.close()) };
}

const KEY = randomBytes(32).toString('base64');

/** An event of the store, recorded the way every change records one: inside the change's transaction. */
async function emit(h: Harness, mode: 'test' | 'prod', type: EventType = 'checkout.completed') {
  const ctx = contextFor(h.service.envs[mode], h.store.id, { traceId: 'test', source: 'test' });
  return inTransaction(ctx, (tx) => recordEvent(tx, type, { id: newId('checkout'), object: 'checkout', mode }));
}

/** An attempt written straight to the database (the tenant columns given, as direct inserts must). */
function insertAttempt(h: Harness, delivery: { id: string; storeId: string; mode: 'test' | 'prod' }, fields: Record<string, unknown>) {
  return h.db.prisma.deliveryAttempt.create({
    data: { id: newId('attempt'), storeId: delivery.storeId, mode: delivery.mode, deliveryId: delivery.id, attemptedAt: new Date(), durationMs: 0, ...fields },
  });
}

describe('webhook endpoints through the official client (test listener)', () => {
  let h: Harness;
  let client: Creem;
  let rest: ReturnType<typeof api>;

  beforeAll(async () => {
    h = await start();
    client = new Creem({ apiKey: h.store.test_api_key, serverURL: h.service.testUrl });
    rest = api(h.service.testUrl, h.store.test_api_key);
  });
  afterAll(() => h?.close());

  it('creates, reads, lists, updates, reveals the secret of and deletes endpoints', async () => {
    const created = await client.webhooks.create({
      url: 'http://localhost:3000/webhooks',
      name: 'Local dev',
      events: ['checkout.completed', 'subscription.paid'],
    });
    expect(created).toMatchObject({
      object: 'webhook',
      mode: 'test',
      storeId: h.store.id,
      name: 'Local dev',
      url: 'http://localhost:3000/webhooks',
      deliveryMode: 'http',
      status: 'enabled',
      events: ['checkout.completed', 'subscription.paid'],
    });
    expect(created.secret).toMatch(/^whsec_/);

    const fetched = await client.webhooks.get(created.id);
    expect(fetched).toEqual({ ...created, secret: undefined });
    expect(fetched).not.toHaveProperty('secret');
    expect(await client.webhooks.getSecret(created.id)).toEqual({ secret: created.secret });

    const cli = await client.webhooks.create({ deliveryMode: 'cli' });
    expect(cli).toMatchObject({ deliveryMode: 'cli', url: '', name: null, status: 'enabled' });
    expect(cli.events).toContain('credits.auto_recharged');

    const page = await client.webhooks.list(1, 1);
    expect(page.result.items.map((w) => w.id)).toEqual([cli.id]);
    expect(page.result.pagination).toMatchObject({ totalRecords: 2, totalPages: 2, nextPage: 2 });
    expect(page.result.items[0]).not.toHaveProperty('secret');
    expect((await client.webhooks.list(2, 1)).result.items.map((w) => w.id)).toEqual([created.id]);

    const updated = await client.webhooks.update(created.id, { name: null, status: 'disabled', events: ['refund.created'], url: 'https://example.com/hooks' });
    expect(updated).toMatchObject({ name: null, status: 'disabled', events: ['refund.created'], url: 'https://example.com/hooks' });
    expect(await client.webhooks.get(created.id)).toEqual(updated);

    const deleted = await client.webhooks.delete(created.id);
    expect(deleted.id).toBe(created.id);
    expect((await rest('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await rest('DELETE', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect((await client.webhooks.list(1, 10)).result.items.map((w) => w.id)).toEqual([cli.id]);
  });

  it('returns secrets only from create, the secret endpoint and rotation, never cached and never logged', async () => {
    const created = await rest('POST', '/v1/webhooks', { url: 'https://example.com/h' });
    expect(created.headers.get('cache-control')).toBe('no-store');
    const secret = created.json.secret as string;
    const rotated = await rest('POST', `/v1/webhooks/${created.json.id}/secret/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(rotated.json)).toEqual(['secret']);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(secret);
    expect(await client.webhooks.getSecret(created.json.id)).toEqual({ secret: rotated.json.secret });

    // Deliveries signed after the rotation carry the new secret's signatures.
    const row = await h.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.json.id } });
    expect(row.secretCiphertext).not.toContain(rotated.json.secret);
    const event = { id: 'evt_x', type: 'checkout.completed', createdAt: new Date(), payload: {} };
    const signed = signDelivery(event, await openSigningSecret(dataScope(h.db.prisma), 'test', row.secretCiphertext), new Date());
    expect(signed.headers['service-signature']).toBe(signDelivery(event, rotated.json.secret, new Date()).headers['service-signature']);

    expect(h.logs.length).toBeGreaterThan(0);
    const logged = h.logs.join('\n');
    for (const s of [secret, rotated.json.secret as string]) expect(logged).not.toContain(s.slice('whsec_'.length));
  });

  it('answers 400 naming the field, and writes nothing', async () => {
    const before = await h.db.prisma.webhookEndpoint.count();
    const bad = async (body: unknown, field: string) => {
      const res = await rest('POST', '/v1/webhooks', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.message.join(' ')).toContain(field);
    };
    await bad({ url: 'https://example.com/h', events: ['checkout.completed', 'order.shipped'] }, 'events[1]');
    await bad({ events: ['checkout.completed'] }, 'url: is required for delivery_mode http');
    await bad({ url: 'javascript:alert(1)' }, 'url');
    await bad({ url: 'https://example.com/h', delivery_mode: 'sms' }, 'delivery_mode');
    await bad({ url: 'https://example.com/h', events: 'checkout.completed' }, 'events');
    expect(await h.db.prisma.webhookEndpoint.count()).toBe(before);

    const { json } = await rest('POST', '/v1/webhooks', { url: 'https://example.com/h' });
    const patch = await rest('PATCH', `/v1/webhooks/${json.id}`, { status: 'on', events: ['nope'] });
    expect(patch.status).toBe(400);
    expect(patch.json.message.join(' ')).toMatch(/status.*events\[0\]|events\[0\].*status/);
  });

  it('resends an event: the delivery is pending and due again, other endpoints untouched', async () => {
    const a = await client.webhooks.create({ url: 'https://example.com/a', events: ['checkout.completed'] });
    const b = await client.webhooks.create({ url: 'https://example.com/b', events: ['checkout.completed'] });
    const event = await emit(h, 'test');
    await h.db.prisma.webhookDelivery.updateMany({ where: { eventId: event.id }, data: { status: 'failed', attemptCount: 5, completedAt: new Date() } });
    const failed = await h.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { eventId_endpointId: { eventId: event.id, endpointId: a.id } } });
    await insertAttempt(h, failed, { statusCode: null, durationMs: 10_000, error: 'timeout after 10000 ms', source: 'http' });

    const res = await rest('POST', `/v1/webhooks/${a.id}/events/${event.id}/resend`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: failed.id,
      object: 'webhook_delivery',
      event_id: event.id,
      event_type: 'checkout.completed',
      endpoint_id: a.id,
      status: 'pending',
      attempt_count: 0,
      completed_at: null,
      attempts: [{ status_code: null, duration_ms: 10_000, error: 'timeout after 10000 ms', source: 'http' }],
    });
    expect(Date.parse(res.json.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    const otherDelivery = await h.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { eventId_endpointId: { eventId: event.id, endpointId: b.id } } });
    expect(otherDelivery.status).toBe('failed');
    // Resending records no attempt by itself.
    expect(await h.db.prisma.deliveryAttempt.count({ where: { deliveryId: failed.id } })).toBe(1);

    const list = await rest('GET', `/v1/webhooks/${a.id}/deliveries?page_size=5`);
    expect(list.json.items).toEqual([res.json]);
    expect(list.json.pagination).toMatchObject({ total_records: 1, current_page: 1 });
    expect((await rest('POST', `/v1/webhooks/${a.id}/events/evt_nope/resend`)).status).toBe(404);
  });

  it('is 404 for another store and for the other environment', async () => {
    const mine = await client.webhooks.create({ url: 'https://example.com/mine' });
    const event = await emit(h, 'test');
    const otherStore = await createStore(h.db.prisma, { name: 'Other' });
    for (const [url, key] of [
      [h.service.testUrl, otherStore.test_api_key],
      [h.service.prodUrl, h.store.prod_api_key],
    ] as const) {
      const call = api(url, key);
      for (const [method, path, body] of [
        ['GET', `/v1/webhooks/${mine.id}`],
        ['PATCH', `/v1/webhooks/${mine.id}`, { name: 'x' }],
        ['GET', `/v1/webhooks/${mine.id}/secret`],
        ['POST', `/v1/webhooks/${mine.id}/secret/rotate`],
        ['GET', `/v1/webhooks/${mine.id}/deliveries`],
        ['POST', `/v1/webhooks/${mine.id}/events/${event.id}/resend`],
        ['DELETE', `/v1/webhooks/${mine.id}`],
      ] as const) {
        const res = await call(method, path, body);
        expect(res.status, `${method} ${path} via ${url}`).toBe(404);
        expect(JSON.stringify(res.json)).not.toContain('whsec_');
      }
      expect((await call('GET', '/v1/webhooks')).json.items).toEqual([]);
    }
    expect((await client.webhooks.get(mine.id)).name).toBeNull();
  });
});

describe('webhook endpoints through GraphQL', () => {
  let h: Harness;
  const gql = (query: string, variables: Record<string, unknown> = {}, key?: string) =>
    api(h.service.testUrl, key ?? h.store.test_api_key)('POST', '/graphql', { query, variables }).then((r) => r.json as { data?: any; errors?: any[] });
  const USER_ERRORS = 'userErrors { field message code }';

  beforeAll(async () => {
    h = await start();
  });
  afterAll(() => h?.close());

  it('manages endpoints and shows their deliveries with events and attempts', async () => {
    const created = await gql(
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret endpoint { id name url deliveryMode status events } ${USER_ERRORS} } }`,
      { input: { url: 'http://localhost:4000/hook', name: 'GQL', events: ['checkout_completed', 'subscription_active'] } },
    );
    expect(created.errors).toBeUndefined();
    const { endpoint, secret, userErrors } = created.data.createWebhookEndpoint;
    expect(userErrors).toEqual([]);
    expect(secret).toMatch(/^whsec_/);
    // The node id is the /v1 id.
    expect(endpoint.id).toMatch(/^wh_/);
    expect(endpoint).toMatchObject({ name: 'GQL', deliveryMode: 'http', status: 'enabled', events: ['checkout_completed', 'subscription_active'] });
    const rest = api(h.service.testUrl, h.store.test_api_key);
    expect((await rest('GET', `/v1/webhooks/${endpoint.id}/secret`)).json.secret).toBe(secret);

    const fields = await gql(`{ __type(name: "WebhookEndpoint") { fields { name } } }`);
    expect(fields.data.__type.fields.map((f: { name: string }) => f.name)).not.toContain('secret');

    const first = await emit(h, 'test', 'checkout.completed');
    const second = await emit(h, 'test', 'subscription.active');
    await emit(h, 'test', 'subscription.paid');
    const delivery = await h.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { eventId_endpointId: { eventId: first.id, endpointId: endpoint.id } } });
    await insertAttempt(h, delivery, { statusCode: 503, durationMs: 7, responseExcerpt: 'busy', source: 'http' });

    const read = await gql(
      `query($id: ID!) { webhookEndpoint(id: $id) { id deliveries(first: 10) { totalCount edges { node { id status attemptCount nextAttemptAt completedAt event { id type payload } attempts { statusCode durationMs responseExcerpt source } } } } } }`,
      { id: endpoint.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.webhookEndpoint.id).toBe(endpoint.id);
    const nodes = read.data.webhookEndpoint.deliveries.edges.map((e: any) => e.node);
    expect(read.data.webhookEndpoint.deliveries.totalCount).toBe(2);
    expect(nodes.map((n: any) => n.event.id)).toEqual([second.id, first.id]);
    expect(nodes[1]).toMatchObject({
      id: delivery.id,
      status: 'pending',
      attemptCount: 0,
      completedAt: null,
      event: { type: 'checkout_completed', payload: { object: 'checkout', mode: 'test' } },
      attempts: [{ statusCode: 503, durationMs: 7, responseExcerpt: 'busy', source: 'http' }],
    });
    expect(nodes[1].nextAttemptAt).toEqual(expect.any(String));

    const events = await gql(`{ all: events(first: 10) { totalCount } paid: events(type: subscription_paid) { edges { node { type } } } }`);
    expect(events.errors).toBeUndefined();
    expect(events.data.all.totalCount).toBe(3);
    expect(events.data.paid.edges).toEqual([{ node: { type: 'subscription_paid' } }]);

    const update = `mutation($input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(input: $input) { endpoint { name status events } ${USER_ERRORS} } }`;
    // Only the fields given change; an explicit null is "not given" in GraphQL inputs (REST's null clears the name).
    const updated = await gql(update, { input: { id: endpoint.id, name: null, status: 'disabled', events: ['refund_created'] } });
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateWebhookEndpoint).toEqual({ endpoint: { name: 'GQL', status: 'disabled', events: ['refund_created'] }, userErrors: [] });
    const resend = `mutation($input: ResendWebhookEventInput!) { resendWebhookEvent(input: $input) { delivery { id status attemptCount completedAt attempts { statusCode } } ${USER_ERRORS} } }`;
    // A disabled endpoint: the caller's mistake, answered in userErrors with the code REST answers.
    const refused = await gql(resend, { input: { endpointId: endpoint.id, eventId: first.id } });
    expect(refused.errors).toBeUndefined();
    expect(refused.data.resendWebhookEvent.delivery).toBeNull();
    expect(refused.data.resendWebhookEvent.userErrors).toEqual([expect.objectContaining({ code: 'invalid_state', message: expect.stringMatching(/disabled/) })]);
    const restRefused = await rest('POST', `/v1/webhooks/${endpoint.id}/events/${first.id}/resend`);
    expect(restRefused).toMatchObject({ status: 400, json: { code: 'invalid_state' } });
    const enabled = await gql(update, { input: { id: endpoint.id, status: 'enabled' } });
    expect(enabled.data.updateWebhookEndpoint).toEqual({ endpoint: { name: 'GQL', status: 'enabled', events: ['refund_created'] }, userErrors: [] });

    await h.db.prisma.webhookDelivery.update({ where: { id: delivery.id }, data: { status: 'failed', completedAt: new Date(), attemptCount: 5 } });
    const resent = await gql(resend, { input: { endpointId: endpoint.id, eventId: first.id } });
    expect(resent.errors).toBeUndefined();
    expect(resent.data.resendWebhookEvent).toEqual({
      delivery: { id: delivery.id, status: 'pending', attemptCount: 0, completedAt: null, attempts: [{ statusCode: 503 }] },
      userErrors: [],
    });

    const rotated = await gql(`mutation($input: RotateWebhookSecretInput!) { rotateWebhookSecret(input: $input) { secret endpoint { id } ${USER_ERRORS} } }`, {
      input: { id: endpoint.id },
    });
    expect(rotated.errors).toBeUndefined();
    expect(rotated.data.rotateWebhookSecret).toMatchObject({ endpoint: { id: endpoint.id }, userErrors: [] });
    expect(rotated.data.rotateWebhookSecret.secret).toMatch(/^whsec_/);
    expect(rotated.data.rotateWebhookSecret.secret).not.toBe(secret);
    expect((await rest('GET', `/v1/webhooks/${endpoint.id}/secret`)).json.secret).toBe(rotated.data.rotateWebhookSecret.secret);

    // Another store sees nothing of it: lookups answer null, without an error.
    const other = await createStore(h.db.prisma, { name: 'Other' });
    const foreign = await gql(`query($id: ID!) { node(id: $id) { id } webhookEndpoint(id: $id) { id } webhookEndpoints { totalCount } }`, { id: endpoint.id }, other.test_api_key);
    expect(foreign.errors).toBeUndefined();
    expect(foreign.data.node).toBeNull();
    expect(foreign.data.webhookEndpoint).toBeNull();
    expect(foreign.data.webhookEndpoints.totalCount).toBe(0);
    const deliveryNode = `query($id: ID!) { node(id: $id) { ... on WebhookDelivery { id event { type } } } }`;
    expect((await gql(deliveryNode, { id: nodes[1].id })).data.node).toEqual({ id: delivery.id, event: { type: 'checkout_completed' } });
    const foreignDelivery = await gql(deliveryNode, { id: nodes[1].id }, other.test_api_key);
    expect(foreignDelivery.errors).toBeUndefined();
    expect(foreignDelivery.data.node).toBeNull();

    const deleted = await gql(`mutation($input: DeleteWebhookEndpointInput!) { deleteWebhookEndpoint(input: $input) { endpoint { id deleted } ${USER_ERRORS} } }`, {
      input: { id: endpoint.id },
    });
    expect(deleted.errors).toBeUndefined();
    expect(deleted.data.deleteWebhookEndpoint).toEqual({ endpoint: { id: endpoint.id, deleted: true }, userErrors: [] });
    const gone = await gql(`query($id: ID!) { webhookEndpoints { totalCount } webhookEndpoint(id: $id) { id } }`, { id: endpoint.id });
    expect(gone.data.webhookEndpoints.totalCount).toBe(0);
    expect(gone.data.webhookEndpoint).toBeNull();
  });

  it('rejects unknown event types naming the index, and writes nothing', async () => {
    const before = await h.db.prisma.webhookEndpoint.count();
    // Event types are an enum now: an unknown one is refused before anything runs, as a 400 naming its index.
    const res = await api(h.service.testUrl, h.store.test_api_key)('POST', '/graphql', {
      query: `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`,
      variables: { input: { url: 'https://example.com/h', events: ['checkout_completed', 'nope'] } },
    });
    expect(res.status).toBe(400);
    expect(res.json.data?.createWebhookEndpoint ?? null).toBeNull();
    expect(res.json.errors).toHaveLength(1);
    expect(res.json.errors[0].message).toContain('events[1]');
    expect(res.json.errors[0].message).toContain('"nope"');
    expect(await h.db.prisma.webhookEndpoint.count()).toBe(before);
  });
});

describe('production endpoints without WEBHOOK_SECRET_KEY', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await start();
  });
  afterAll(() => h?.close());

  it('are refused with 503 and a clear message; test-mode endpoints still work', async () => {
    const prod = await api(h.service.prodUrl, h.store.prod_api_key)('POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook' });
    expect(prod.status).toBe(503);
    expect(prod.json.message.join(' ')).toMatch(/WEBHOOK_SECRET_KEY is not configured/);
    expect(await h.db.prisma.webhookEndpoint.count({ where: { mode: 'prod' } })).toBe(0);
    const test = await api(h.service.testUrl, h.store.test_api_key)('POST', '/v1/webhooks', { url: 'https://93.184.216.34/hook' });
    expect(test.status).toBe(200);
  });
});

describe('production endpoints with WEBHOOK_SECRET_KEY', () => {
  let h: Harness;
  let prodClient: Creem;
  beforeAll(async () => {
    h = await start({ WEBHOOK_SECRET_KEY: KEY });
    prodClient = new Creem({ apiKey: h.store.prod_api_key, serverURL: h.service.prodUrl });
  });
  afterAll(() => h?.close());

  it('are created, with the secret sealed by the configured key', async () => {
    const created = await prodClient.webhooks.create({ url: 'https://93.184.216.34/hook', events: ['checkout.completed'] });
    expect(created.mode).toBe('prod');
    const row = await h.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.secretCiphertext).not.toContain(created.secret!.slice('whsec_'.length));
    expect((await prodClient.webhooks.getSecret(created.id)).secret).toBe(created.secret);
  });

  it('refuse loopback, private, link-local and metadata URLs (server-side request forgery)', async () => {
    const prod = api(h.service.prodUrl, h.store.prod_api_key);
    for (const url of ['http://127.0.0.1/hook', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://localhost:3000/webhooks']) {
      const res = await prod('POST', '/v1/webhooks', { url });
      expect(res.status, url).toBe(400);
      expect(res.json.message.join(' '), url).toMatch(/^url: must not point to/);
    }
    const { json } = await prod('POST', '/v1/webhooks', { url: 'https://93.184.216.34/ok' });
    const patched = await prod('PATCH', `/v1/webhooks/${json.id}`, { url: 'http://[::ffff:127.0.0.1]:8080/' });
    expect(patched.status).toBe(400);
    expect((await prod('GET', `/v1/webhooks/${json.id}`)).json.url).toBe('https://93.184.216.34/ok');
    expect(await h.db.prisma.webhookEndpoint.count({ where: { mode: 'prod', url: { contains: '127.0.0.1' } } })).toBe(0);
  });

  it('while test-mode endpoints may point at localhost', async () => {
    const test = await api(h.service.testUrl, h.store.test_api_key)('POST', '/v1/webhooks', { url: 'http://localhost:3000/webhooks' });
    expect(test.status).toBe(200);
  });
});

describe('production endpoints with WEBHOOK_ALLOW_PRIVATE_URLS=true', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await start({ WEBHOOK_SECRET_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(() => h?.close());

  it('may point at private addresses (startService hands the setting to the endpoint API)', async () => {
    const prod = api(h.service.prodUrl, h.store.prod_api_key);
    for (const url of ['http://127.0.0.1:9000/hook', 'http://10.0.0.1/', 'http://localhost:3000/webhooks']) {
      const res = await prod('POST', '/v1/webhooks', { url });
      expect(res.status, `${url}: ${JSON.stringify(res.json)}`).toBe(200);
    }
  });
});
