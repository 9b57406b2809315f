import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/** Each store's test environment has a clock of its own that only moves forward; production has none. */
describe('test clock', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;
  let prod: ReturnType<typeof api>;
  let storeId: string;

  beforeAll(async () => {
    service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    const store = await service.createStore('Clocked');
    storeId = store.id;
    call = api(service.testUrl, store.test_api_key);
    prod = api(service.prodUrl, store.prod_api_key);
    other = api(service.testUrl, (await service.createStore('Other')).test_api_key);
  });
  afterAll(() => service?.close());

  it('starts at real time and moves forward by seconds or to an instant, never back', async () => {
    const start = (await call('GET', '/v1/test-clock')).json;
    expect(start).toMatchObject({ object: 'test_clock', offset_ms: 0 });
    expect(Math.abs(Date.parse(start.now) - Date.now())).toBeLessThan(5_000);

    const day = await call('POST', '/v1/test-clock/advance', { seconds: 86_400 });
    expect(day.status).toBe(200);
    expect(day.json).toMatchObject({ object: 'test_clock', offset_ms: 86_400_000, ran: {} });
    expect(Date.parse(day.json.now) - Date.parse(start.now)).toBeGreaterThanOrEqual(86_400_000);

    const target = new Date(Date.parse(day.json.now) + 30 * 86_400_000);
    const to = await call('POST', '/v1/test-clock/advance', { to: target.toISOString() });
    expect(Math.abs(Date.parse(to.json.now) - target.getTime())).toBeLessThan(5_000);

    const back = await call('POST', '/v1/test-clock/advance', { to: start.now });
    expect(back.status).toBe(400);
    expect(back.json.message).toEqual([expect.stringMatching(/^to: must be later than the test clock's now/)]);
    for (const bad of [{}, { seconds: 0 }, { seconds: 1.5 }, { seconds: 10, to: target.toISOString() }]) {
      expect((await call('POST', '/v1/test-clock/advance', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    // Another store's clock has not moved.
    expect((await other('GET', '/v1/test-clock')).json.offset_ms).toBe(0);
  });

  it('moves once for a retried advance with the same Idempotency-Key', async () => {
    const before = (await call('GET', '/v1/test-clock')).json.offset_ms;
    const key = { 'Idempotency-Key': `advance-${before}` };
    const first = await call('POST', '/v1/test-clock/advance', { seconds: 3_600 }, key);
    const again = await call('POST', '/v1/test-clock/advance', { seconds: 3_600 }, key);
    expect(first.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect((await call('GET', '/v1/test-clock')).json.offset_ms - before).toBeGreaterThanOrEqual(3_600_000);
    expect((await call('GET', '/v1/test-clock')).json.offset_ms - before).toBeLessThan(2 * 3_600_000);
  });

  it('is what the store’s test environment reads time from: a checkout expires by it', async () => {
    const product = await makeProduct(service.contextOf({ id: storeId }));
    const checkout = (await call('POST', '/v1/checkouts', { product_id: product.id })).json;
    expect((await fetch(checkout.checkout_url)).status).toBe(200);
    await call('POST', '/v1/test-clock/advance', { seconds: 3 * 86_400 });
    expect((await fetch(checkout.checkout_url)).status).toBe(410);
    expect((await call('GET', `/v1/checkouts?checkout_id=${checkout.id}`)).json.status).toBe('expired');
  });

  it('does not exist in production (404 on REST, null on GraphQL)', async () => {
    expect((await prod('GET', '/v1/test-clock')).status).toBe(404);
    expect((await prod('POST', '/v1/test-clock/advance', { seconds: 60 })).status).toBe(404);
    expect((await prod('POST', '/graphql', { query: '{ testClock { now } }' })).json).toEqual({ data: { testClock: null } });
  });

  it('is read and moved through GraphQL as well', async () => {
    const before = (await call('POST', '/graphql', { query: '{ testClock { now offsetMs } }' })).json.data.testClock;
    const moved = await call('POST', '/graphql', {
      query: 'mutation($i: AdvanceTestClockInput!) { advanceTestClock(input: $i) { testClock { offsetMs } ran { kind count } userErrors { field code } } }',
      variables: { i: { seconds: 60 } },
    });
    expect(moved.json.data.advanceTestClock).toEqual({ testClock: { offsetMs: before.offsetMs + 60_000 }, ran: [], userErrors: [] });
    const refused = await call('POST', '/graphql', {
      query: 'mutation($i: AdvanceTestClockInput!) { advanceTestClock(input: $i) { testClock { offsetMs } userErrors { field code } } }',
      variables: { i: { to: '2001-01-01T00:00:00Z' } },
    });
    expect(refused.json.data.advanceTestClock).toEqual({ testClock: null, userErrors: [{ field: 'to', code: 'validation_failed' }] });
  });
});
