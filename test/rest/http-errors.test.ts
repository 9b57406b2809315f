import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';

/** What the official client cannot express: authentication, isolation, malformed and invalid input. */
describe('REST /v1 errors', () => {
  let service: TestService;
  let testKey: string;
  let prodKey: string;
  let otherStoreKey: string;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    testKey = store.test_api_key;
    prodKey = store.prod_api_key;
    otherStoreKey = (await service.createStore('Other')).test_api_key;
    call = api(service.testUrl, testKey);
  });
  afterAll(() => service?.close());

  const productBody = { name: 'Plan', price: 1000, currency: 'EUR', billing_type: 'onetime' };
  const countProducts = () => service.db.prisma.product.count();

  function expectStandardError(res: { status: number; json: any; headers: Headers }, status: number) {
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ status, trace_id: expect.any(String), timestamp: expect.any(Number), error: expect.any(String) });
    expect(res.json.message).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(res.headers.get('x-trace-id')).toBe(res.json.trace_id);
  }

  it('answers 401 without a key and 403 for an unknown key', async () => {
    expectStandardError(await api(service.testUrl, undefined)('GET', '/v1/products/search'), 401);
    expectStandardError(await api(service.testUrl, 'sk_test_nope')('GET', '/v1/products/search'), 403);
  });

  it('answers 403 for a key of the other environment, on both listeners', async () => {
    expectStandardError(await api(service.testUrl, prodKey)('GET', '/v1/products/search'), 403);
    expectStandardError(await api(service.prodUrl, testKey)('GET', '/v1/products/search'), 403);
  });

  it('sends a trace id header on successful responses too', async () => {
    const res = await call('GET', '/v1/products/search');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('hides products and customers of other stores and of the other environment (404)', async () => {
    const product = (await call('POST', '/v1/products', productBody)).json;
    const customer = (await call('POST', '/v1/customers', { email: 'iso@example.com' })).json;
    const other = api(service.testUrl, otherStoreKey);
    const prod = api(service.prodUrl, prodKey);
    for (const client of [other, prod]) {
      expectStandardError(await client('GET', `/v1/products/${product.id}`), 404);
      expectStandardError(await client('PATCH', `/v1/products/${product.id}`, { name: 'hijack' }), 404);
      expectStandardError(await client('DELETE', `/v1/products/${product.id}`), 404);
      expectStandardError(await client('GET', `/v1/customers?customer_id=${customer.id}`), 404);
      expectStandardError(await client('GET', `/v1/customers?email=iso@example.com`), 404);
      expectStandardError(await client('PATCH', '/v1/customers', { customer_id: customer.id, name: 'x' }), 404);
      expect((await client('GET', '/v1/products/search')).json.items).toEqual([]);
      expect((await client('GET', '/v1/customers/list')).json.items).toEqual([]);
    }
    expect((await call('GET', `/v1/products/${product.id}`)).json.name).toBe('Plan');
    expect((await call('GET', `/v1/customers?customer_id=${customer.id}`)).json.name).toBeNull();
  });

  it('answers 404 for unknown routes', async () => {
    expectStandardError(await call('GET', '/v1/nothing-here'), 404);
    expectStandardError(await call('GET', '/not-an-api'), 404);
  });

  it('answers 400 for malformed JSON and writes nothing', async () => {
    const before = await countProducts();
    const res = await call('POST', '/v1/products', '{"name": "broken",');
    expectStandardError(res, 400);
    expect(await countProducts()).toBe(before);
  });

  it('answers 400 with one message per invalid field and writes nothing', async () => {
    const before = await countProducts();
    const res = await call('POST', '/v1/products', {
      name: '',
      price: 12.5,
      currency: 'eur',
      billing_type: 'weekly',
      image_url: 'https://cdn.example.com/logo.gif',
    });
    expectStandardError(res, 400);
    const fields = (res.json.message as string[]).map((m) => m.split(':')[0]);
    expect(fields).toEqual(expect.arrayContaining(['name', 'price', 'currency', 'billing_type', 'image_url']));
    expect(await countProducts()).toBe(before);
  });

  it('applies the cross-field product rules with a message naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...productBody, billing_type: 'recurring' }, 'billing_period'],
      [{ ...productBody, billing_type: 'recurring', billing_period: 'custom', recurring_interval: 'week' }, 'recurring_interval_count'],
      [{ ...productBody, billing_type: 'recurring', billing_period: 'custom', recurring_interval: 'week', recurring_interval_count: 53 }, 'recurring_interval_count'],
      [{ ...productBody, billing_type: 'recurring', billing_period: 'every-month', recurring_interval: 'year' }, 'recurring_interval'],
      [{ ...productBody, trial_period_days: 7 }, 'trial_period_days'],
      [{ ...productBody, price: 50 }, 'price'],
      [{ ...productBody, pay_what_you_want: true, suggested_price: 500 }, 'suggested_price'],
      [{ ...productBody, custom_fields: [{ type: 'text', key: 'a', label: 'A' }, { type: 'text', key: 'a', label: 'B' }] }, 'custom_fields[1].key'],
      [{ ...productBody, custom_fields: [{ type: 'text', key: 'a', label: 'A', text: { min_length: 5, max_length: 2 } }] }, 'custom_fields[0].text.min_length'],
      [{ ...productBody, usage_prices: [{ meter_id: 'mtr_x', unit_price: 1, settlement_mode: 'prepaid' }] }, 'usage_prices'],
      [{ ...productBody, unknown_field: true }, ''],
    ];
    const before = await countProducts();
    for (const [body, field] of cases) {
      const res = await call('POST', '/v1/products', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      if (field) expect(res.json.message.some((m: string) => m.startsWith(`${field}:`)), `${field} in ${res.json.message}`).toBe(true);
    }
    expect(await countProducts()).toBe(before);
  });

  it('rejects invalid paging and update input with 400 and keeps the product unchanged', async () => {
    expectStandardError(await call('GET', '/v1/products/search?page_size=1000'), 400);
    expectStandardError(await call('GET', '/v1/products/search?page_number=abc'), 400);
    expectStandardError(await call('GET', '/v1/products/search?status=deleted'), 400);
    const product = (await call('POST', '/v1/products', productBody)).json;
    const res = await call('PATCH', `/v1/products/${product.id}`, { name: 'New', price: -5 });
    expectStandardError(res, 400);
    expect((await call('GET', `/v1/products/${product.id}`)).json.name).toBe('Plan');
  });

  it('answers 400 naming the field for duplicate or invalid customers', async () => {
    await call('POST', '/v1/customers', { email: 'dup@example.com', external_id: 'ext-1' });
    const dup = await call('POST', '/v1/customers', { email: 'DUP@example.com' });
    expectStandardError(dup, 400);
    expect(dup.json.message[0]).toMatch(/^email: .*already exists/);
    const dupExternal = await call('POST', '/v1/customers', { email: 'other@example.com', external_id: 'ext-1' });
    expect(dupExternal.json.message[0]).toMatch(/^external_id: .*already exists/);
    const bad = await call('POST', '/v1/customers', { email: 'not-an-email', metadata: 'x' });
    expectStandardError(bad, 400);
    expect(bad.json.message.map((m: string) => m.split(':')[0]).sort()).toEqual(['email', 'metadata']);
    expectStandardError(await call('GET', '/v1/customers'), 400);
    expectStandardError(await call('GET', '/v1/customers/list?page_size=0'), 400);
  });

  it('refuses bodies over the size limit with 413', async () => {
    const res = await call('POST', '/v1/products', { ...productBody, description: 'x'.repeat(100_000) });
    expectStandardError(res, 413);
  });

  it('refuses an Idempotency-Key reused with a different body', async () => {
    const first = await call('POST', '/v1/customers', { email: 'idem@example.com' }, { 'idempotency-key': 'k-1' });
    const replay = await call('POST', '/v1/customers', { email: 'idem@example.com' }, { 'idempotency-key': 'k-1' });
    expect(replay.status).toBe(200);
    expect(replay.json.id).toBe(first.json.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectStandardError(await call('POST', '/v1/customers', { email: 'idem2@example.com' }, { 'idempotency-key': 'k-1' }), 400);
    expect(await service.db.prisma.customer.count({ where: { email: { startsWith: 'idem' } } })).toBe(1);
  });

  it('creates once when the same Idempotency-Key is sent by concurrent requests', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/v1/products', { ...productBody, name: 'Concurrent' }, { 'idempotency-key': 'race-1' })),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.id)).size).toBe(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(r.status).toBe(409);
    expect(await service.db.prisma.product.count({ where: { name: 'Concurrent' } })).toBe(1);
  });

  it('creates one customer when the same e-mail is submitted concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => call('POST', '/v1/customers', { email: 'race@example.com' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    expect(await service.db.prisma.customer.count({ where: { email: 'race@example.com' } })).toBe(1);
  });

  it('serves /healthz without a key', async () => {
    const res = await api(service.testUrl, undefined)('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok', mode: 'test' });
  });
});
