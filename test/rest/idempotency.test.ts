import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, execute } from '../../src/core/operation.js';
import { purgeExpiredIdempotencyRecords } from '../../src/core/idempotency.js';
import { db } from '../../src/db/tenant.js';
import { ManualClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Idempotency-Key is kept by the core: the first answer of a write, success or refusal, is
 * recorded in the write's own transaction and answered to every retry, on REST and GraphQL
 * alike; a write that never committed leaves the key free.
 */
describe('Idempotency-Key', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  let service: TestService;
  let call: ReturnType<typeof api>;
  let store: { id: string; test_api_key: string };

  beforeAll(async () => {
    service = await startTestService({ clock });
    store = await service.createStore();
    call = api(service.testUrl, store.test_api_key);
  });
  afterAll(() => service?.close());

  it('replays within 24 hours and treats the key as new after that', async () => {
    const first = await call('POST', '/v1/customers', { email: 'a@example.com' }, { 'idempotency-key': 'daily' });
    clock.advance(23 * 60 * 60 * 1000);
    const replay = await call('POST', '/v1/customers', { email: 'a@example.com' }, { 'idempotency-key': 'daily' });
    expect(replay.json.id).toBe(first.json.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    clock.advance(2 * 60 * 60 * 1000);
    const fresh = await call('POST', '/v1/customers', { email: 'b@example.com' }, { 'idempotency-key': 'daily' });
    expect(fresh.status).toBe(200);
    expect(fresh.json.email).toBe('b@example.com');
  });

  it('purges records older than the window', async () => {
    await call('POST', '/v1/customers', { email: 'c@example.com' }, { 'idempotency-key': 'old' });
    clock.advance(25 * 60 * 60 * 1000);
    await call('POST', '/v1/customers', { email: 'd@example.com' }, { 'idempotency-key': 'recent' });
    await purgeExpiredIdempotencyRecords(service.db.prisma, clock.now());
    const keys = (await service.db.prisma.idempotencyRecord.findMany({ where: { storeId: store.id } })).map((r) => r.key);
    expect(keys).toEqual(['recent']);
  });

  it('remembers a refusal too: the retry gets the same 400 even after the world changed', async () => {
    const ctx = service.contextOf(store);
    const product = await makeProduct(ctx, { features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 1 } }] });
    const paid = await makePaidCheckout(ctx, product.id);
    const key = paid.order!.licenses[0]!.key;
    const first = await call('POST', '/v1/licenses/activate', { key, instance_name: 'laptop' });
    const refused = await call('POST', '/v1/licenses/activate', { key, instance_name: 'desktop' }, { 'idempotency-key': 'second-device' });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('activation_limit_reached');
    // A slot is free again; the same request with the same key still answers the first answer.
    expect((await call('POST', '/v1/licenses/deactivate', { key, instance_id: first.json.instance.id })).status).toBe(200);
    const retry = await call('POST', '/v1/licenses/activate', { key, instance_name: 'desktop' }, { 'idempotency-key': 'second-device' });
    expect(retry.status).toBe(400);
    expect(retry.json).toMatchObject({ code: 'activation_limit_reached', message: refused.json.message });
    // A new key is a new request.
    expect((await call('POST', '/v1/licenses/activate', { key, instance_name: 'desktop' }, { 'idempotency-key': 'third' })).status).toBe(200);
  });

  it('leaves the key free when the write never committed (a crash in the middle)', async () => {
    const ctx = { ...service.contextOf(store), idempotencyKey: 'crash-1' };
    let crash = true;
    const op = defineOperation({
      name: 'test.crashing_write',
      summary: 'Create a customer, then crash',
      input: z.object({ email: z.string() }),
      write: true,
      output: z.object({ id: z.string() }),
      run: async (tx, input) => {
        const customer = await db(tx).customer.create({ data: { id: newId('customer'), email: input.email } });
        if (crash) throw new Error('process died');
        return customer;
      },
      render: (_ctx, c) => ({ id: c.id }),
    });
    await expect(execute(ctx, op, { email: 'crash@example.com' })).rejects.toThrow('process died');
    crash = false;
    const retried = await execute(ctx, op, { email: 'crash@example.com' });
    expect(retried.replayed).toBe(false);
    expect(await service.db.prisma.customer.count({ where: { storeId: store.id, email: 'crash@example.com' } })).toBe(1);
    const replayed = await execute(ctx, op, { email: 'crash@example.com' });
    expect(replayed).toMatchObject({ replayed: true, id: retried.id });
  });

  it('is one key for both surfaces: a GraphQL retry of a REST write replays it', async () => {
    const rest = await call('POST', '/v1/customers', { email: 'both@example.com', name: 'Both' }, { 'idempotency-key': 'shared' });
    const gql = await call(
      'POST',
      '/graphql',
      { query: 'mutation { createCustomer(input: { email: "both@example.com", name: "Both" }) { customer { id name } userErrors { code } } }' },
      { 'idempotency-key': 'shared' },
    );
    expect(gql.json.data.createCustomer).toEqual({ customer: { id: rest.json.id, name: 'Both' }, userErrors: [] });
    expect(await service.db.prisma.customer.count({ where: { storeId: store.id, email: 'both@example.com' } })).toBe(1);
  });

  it('refuses a key longer than 255 characters, naming the header, and writes nothing', async () => {
    const res = await call('POST', '/v1/customers', { email: 'long@example.com' }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.json.message).toEqual(['Idempotency-Key: must be 1 to 255 characters']);
    expect(await service.db.prisma.customer.count({ where: { email: 'long@example.com' } })).toBe(0);
  });
});
