import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type RunningService } from '../../src/service.js';
import { makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Rate limits: per API key on /v1 (requests) and on GraphQL (query cost), per client address on
 * the hosted checkout's payment submits. A refusal is the standard error body with 429,
 * `Retry-After` and `RateLimit-*`; with REDIS_URL the counts are shared by every process.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(500);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

/** 1 + 50 × 1: a page of 50 customers' ids. */
const COST_51 = '{ customers(first: 50) { edges { node { id } } } }';

function expect429(res: { status: number; headers: Headers; json: any }) {
  expect(res.status).toBe(429);
  expect(res.json).toMatchObject({ status: 429, error: 'Too Many Requests', code: 'rate_limited', message: [expect.stringContaining('Too many requests')] });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
}

describe('rate limits (in memory)', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;

  beforeAll(async () => {
    service = await startTestService({
      env: { JOB_RUNNER: 'off', RATE_LIMIT: 'on', RATE_LIMIT_API_PER_SECOND: '3', RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '100', RATE_LIMIT_CHECKOUT_SUBMITS: '2' },
    });
    call = api(service.testUrl, (await service.createStore('A')).test_api_key);
    other = api(service.testUrl, (await service.createStore('B')).test_api_key);
  });
  afterAll(() => service?.close());

  it('/v1: a key gets its requests per second, concurrent ones included, then 429; other keys are not affected', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('GET', '/v1/products/search')));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(3);
    expect(ok.map((a) => a.headers.get('ratelimit-remaining')).sort()).toEqual(['0', '1', '2']);
    expect(ok[0]!.headers.get('ratelimit-limit')).toBe('3');
    for (const refused of answers.filter((a) => a.status !== 200)) expect429(refused);
    expect((await other('GET', '/v1/products/search')).status).toBe(200);
  });

  it('GraphQL: a key spends query cost, not requests; the refusal carries the code, the status and the headers', async () => {
    const first = await call('POST', '/graphql', { query: COST_51 });
    expect(first.json.errors).toBeUndefined();
    expect(first.headers.get('ratelimit-remaining')).toBe('49');
    const second = await call('POST', '/graphql', { query: COST_51 });
    expect(second.status).toBe(429);
    expect(second.json.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'rate_limited' }) })]);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.json.data).toBeUndefined();
    // Cheap queries still fit what is left.
    expect((await call('POST', '/graphql', { query: '{ customers(first: 10) { totalCount } }' })).json.errors).toBeUndefined();
  });

  it('hosted checkout: payment submits are limited per client address', async () => {
    const store = await service.createStore('Shop');
    const product = await makeProduct(service.contextOf(store));
    const checkout = (await api(service.testUrl, store.test_api_key)('POST', '/v1/checkouts', { product_id: product.id })).json;
    const submit = () => fetch(checkout.checkout_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: 'card_number=4000000000000002' });
    expect((await submit()).status).toBe(403); // no anti-forgery token: refused, but counted
    expect((await submit()).status).toBe(403);
    const third = await submit();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await third.text()).toContain('Too many payment attempts');
  });
});

describe('rate limits off (RATE_LIMIT=off)', () => {
  it('sends no RateLimit headers rather than a limit of 0', async () => {
    const s = await startTestService({ env: { JOB_RUNNER: 'off', RATE_LIMIT: 'off' } });
    try {
      const res = await api(s.testUrl, (await s.createStore()).test_api_key)('GET', '/v1/products/search');
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
      expect(res.headers.get('ratelimit-remaining')).toBeNull();
    } finally {
      await s.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  let a: TestService;
  let b: RunningService | undefined;
  let redisUp = false;

  beforeAll(async () => {
    redisUp = await reachable(REDIS_URL);
    if (!redisUp && process.env.REQUIRE_REDIS) throw new Error(`REQUIRE_REDIS is set but Redis does not answer at ${REDIS_URL}`);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('two processes on one database count one budget per key', async (t) => {
    if (!redisUp) return t.skip();
    const env = { JOB_RUNNER: 'off', RATE_LIMIT: 'on', REDIS_URL, RATE_LIMIT_GRAPHQL_COST_PER_MINUTE: '100' };
    a = await startTestService({ env });
    const config = { ...loadConfig({ HOST: '127.0.0.1', PORT: '0', TEST_PORT: '0', ...env }), bodyLimit: '64kb' };
    b = await startService({ config, logger: createLogger('silent'), db: a.db });
    const key = (await a.createStore('Shared')).test_api_key;
    const viaA = await api(a.testUrl, key)('POST', '/graphql', { query: COST_51 });
    expect(viaA.json.errors).toBeUndefined();
    const viaB = await api(b.testUrl, key)('POST', '/graphql', { query: COST_51 });
    expect(viaB.status).toBe(429);
  });

  it('keeps serving, counting in memory, when Redis cannot be reached', async () => {
    const s = await startTestService({ env: { JOB_RUNNER: 'off', RATE_LIMIT: 'on', REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_API_PER_SECOND: '2' } });
    try {
      const call = api(s.testUrl, (await s.createStore()).test_api_key);
      const answers = await Promise.all(Array.from({ length: 4 }, () => call('GET', '/v1/products/search')));
      expect(answers.map((x) => x.status).sort()).toEqual([200, 200, 429, 429]);
    } finally {
      await s.close();
    }
  });
});
