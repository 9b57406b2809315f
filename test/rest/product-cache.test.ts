import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createLogger } from '../../src/logger.js';
import { loadConfig } from '../../src/config.js';
import { startService, type RunningService } from '../../src/service.js';
import { api, startTestService, type TestService } from '../support/service.js';

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 5_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET /v1/products/{id} is served from a per-process cache; these are the guarantees that make that safe. */
describe('product read cache', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    service = await startTestService();
    call = api(service.testUrl, (await service.createStore()).test_api_key);
  });
  afterAll(() => service?.close());

  it('answers a read after a write with the write (PATCH, DELETE)', async () => {
    const p = (await call('POST', '/v1/products', { name: 'v1', price: 1000, currency: 'EUR', billing_type: 'onetime' })).json;
    expect((await call('GET', `/v1/products/${p.id}`)).json.name).toBe('v1');
    expect((await call('GET', `/v1/products/${p.id}`)).json.name).toBe('v1');
    await call('PATCH', `/v1/products/${p.id}`, { name: 'v2' });
    expect((await call('GET', `/v1/products/${p.id}`)).json.name).toBe('v2');
    await call('DELETE', `/v1/products/${p.id}`);
    expect((await call('GET', `/v1/products/${p.id}`)).json.status).toBe('archived');
  });

  describe.runIf(process.env.DATABASE_URL)('with two server processes on one PostgreSQL database', () => {
    let secondDb: Database;
    let second: RunningService;
    let callSecond: ReturnType<typeof api>;
    let key: string;

    beforeAll(async () => {
      key = (await service.createStore('Shared')).test_api_key;
      call = api(service.testUrl, key);
      secondDb = await openDatabase({ databaseUrl: service.db.url! });
      const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', TEST_PORT: '0' });
      second = await startService({ config, logger: createLogger('silent'), db: secondDb });
      callSecond = api(second.testUrl, key);
    });
    afterAll(async () => {
      await second?.close();
      await secondDb?.close();
    });

    const sneak = (id: string, name: string) => service.db.prisma.$executeRaw`UPDATE "Product" SET name = ${name} WHERE id = ${id}`;

    it("serves the other process's writes once they commit", async () => {
      const p = (await call('POST', '/v1/products', { name: 'first', price: 1000, currency: 'EUR', billing_type: 'onetime' })).json;
      expect((await callSecond('GET', `/v1/products/${p.id}`)).json.name).toBe('first');
      // A change that bypasses the service announces nothing: the second process keeps its copy.
      await sneak(p.id, 'unannounced');
      expect((await callSecond('GET', `/v1/products/${p.id}`)).json.name).toBe('first');
      await call('PATCH', `/v1/products/${p.id}`, { name: 'patched' });
      const seen = await eventually(() => callSecond('GET', `/v1/products/${p.id}`), (r) => r.json.name === 'patched');
      expect(seen.json.name).toBe('patched');
    });

    it("moves every process's test clock when one process advances it", async () => {
      // A webhook endpoint's created_at is the store's clock, read through the process's cache.
      const createdAt = async (caller: typeof call) => (await caller('POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['checkout.completed'] })).json.created_at as string;
      // Both processes have read (and cached) the store's offset.
      const before = Date.parse(await createdAt(callSecond));
      expect(Math.abs(before - Date.now())).toBeLessThan(60_000);
      expect((await call('POST', '/v1/test-clock/advance', { seconds: 10 * 86_400 })).status).toBe(200);
      const moved = await eventually(async () => Date.parse(await createdAt(callSecond)), (t) => t - Date.now() > 9 * 86_400_000);
      expect(moved - Date.now()).toBeGreaterThan(9 * 86_400_000);
    });

    it('stops serving from the cache while the change feed is down, and resumes after it reconnects', async () => {
      const p = (await call('POST', '/v1/products', { name: 'cached', price: 1000, currency: 'EUR', billing_type: 'onetime' })).json;
      expect((await callSecond('GET', `/v1/products/${p.id}`)).json.name).toBe('cached');
      await service.db.prisma.$executeRaw`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
      await sneak(p.id, 'changed while the feed was down');
      const seen = await eventually(() => callSecond('GET', `/v1/products/${p.id}`), (r) => r.json.name !== 'cached');
      expect(seen.json.name).toBe('changed while the feed was down');
      // Back after the reconnect (both processes listen again): announced writes are followed again.
      const listening = () =>
        service.db.prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`;
      // Two feeds per process: products and test clocks.
      await eventually(listening, (rows) => Number(rows[0]!.n) >= 4);
      await call('PATCH', `/v1/products/${p.id}`, { name: 'after reconnect' });
      const again = await eventually(() => callSecond('GET', `/v1/products/${p.id}`), (r) => r.json.name === 'after reconnect');
      expect(again.json.name).toBe('after reconnect');
    });
  });
});
