import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { purgeExpiredIdempotencyRecords } from '../../src/rest/idempotency.js';
import { api, startTestService, type TestService } from '../support/service.js';

describe('Idempotency-Key window', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  let service: TestService;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    service = await startTestService({ clock });
    call = api(service.testUrl, (await service.createStore()).test_api_key);
  });
  afterAll(() => service?.close());

  it('replays within 24 hours and treats the key as new after that', async () => {
    const first = await call('POST', '/v1/customers', { email: 'a@example.com' }, { 'idempotency-key': 'daily' });
    clock.advance(23 * 60 * 60 * 1000);
    const replay = await call('POST', '/v1/customers', { email: 'a@example.com' }, { 'idempotency-key': 'daily' });
    expect(replay.json.id).toBe(first.json.id);
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
    const keys = (await service.db.prisma.idempotencyRecord.findMany()).map((r) => r.key);
    expect(keys).toEqual(['recent']);
  });
});
