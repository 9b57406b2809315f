import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCustomer, makeProduct } from '../support/factories.js';
import { tenantFingerprint } from '../support/routes.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * The cases the hardening review found answering 500 (or worse, accepted), each as it was
 * reported: the caller's mistake gets a 4xx with the standard error body and changes nothing.
 */
describe('bad input is the caller’s mistake, never a 500', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let storeId: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    service = await startTestService({ env: { JOB_RUNNER: 'off' }, logger: pino({ level: 'info' }, sink) });
    const store = await service.createStore();
    storeId = store.id;
    call = api(service.testUrl, store.test_api_key);
  });
  afterAll(() => service?.close());

  const unchanged = async <T>(fn: () => Promise<T>): Promise<T> => {
    const before = await tenantFingerprint(service.db, storeId);
    const out = await fn();
    expect(await tenantFingerprint(service.db, storeId)).toBe(before);
    return out;
  };

  it('refuses U+0000 in a body field with 400 naming the field', async () => {
    const res = await unchanged(() => call('POST', '/v1/customers', '{"email":"a@b.co","name":"a\\u0000b"}'));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'validation_failed', message: [expect.stringMatching(/^name: .*U\+0000/)] });
  });

  it('refuses unpaired surrogates in JSON fields (metadata values, custom field labels) naming them', async () => {
    const meta = await unchanged(() => call('POST', '/v1/customers', '{"email":"s@b.co","metadata":{"k":"\\ud800"}}'));
    expect(meta.status).toBe(400);
    expect(meta.json.message).toEqual([expect.stringMatching(/^metadata\.k: .*surrogate/)]);
    const label = await unchanged(() =>
      call('POST', '/v1/products', { name: 'P', price: 100, currency: 'EUR', billing_type: 'onetime', custom_fields: [{ type: 'text', key: 'k', label: '\udc00x' }] }),
    );
    expect(label.status).toBe(400);
    expect(label.json.message).toEqual([expect.stringMatching(/^custom_fields\[0\]\.label: /)]);
  });

  it('answers 404 for an id carrying U+0000, in a query, a path and a hosted page, as for any unknown id', async () => {
    const query = await call('GET', '/v1/customers?customer_id=cust_%00');
    expect(query.status).toBe(404);
    expect(query.json.code).toBe('not_found');
    expect((await call('GET', '/v1/products/prod_%00')).status).toBe(404);
    const page = await fetch(`${service.testUrl}/buy/prod_%00`, { redirect: 'manual' });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Product not found');
    expect((await fetch(`${service.testUrl}/checkout/ch_%00`)).status).toBe(404);
  });

  it('keeps the 4xx a library gave the error: malformed percent-encoding, a body that is not gzip, too many form fields', async () => {
    for (const path of ['/v1/products/%E0%A4%A', '/checkout/%']) {
      const res = await call('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json).toMatchObject({ status: 400, error: 'Bad Request', code: 'malformed_request', message: [expect.stringContaining('percent-encoding')] });
    }
    const gzip = await unchanged(() => call('POST', '/v1/products', 'not gzip at all', { 'content-encoding': 'gzip' }));
    expect(gzip.status).toBe(400);
    expect(gzip.json.code).toBe('malformed_request');
    const product = await makeProduct(service.contextOf({ id: storeId }));
    const checkout = (await call('POST', '/v1/checkouts', { product_id: product.id })).json;
    const form = new URLSearchParams(Array.from({ length: 101 }, (_, i) => [`f${i}`, 'x']));
    const many = await unchanged(() =>
      fetch(checkout.checkout_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: form }),
    );
    expect(many.status).toBe(413);
    expect(await many.json()).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('refuses dates outside the calendar or PostgreSQL’s range with 400 naming the parameter', async () => {
    for (const bad of ['0000-01-01', '2026-02-31', '2026-13-01', '99999-01-01']) {
      const res = await call('GET', `/v1/discounts/search?created_after=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.message, bad).toEqual([expect.stringMatching(/^created_after: /)]);
    }
    expect((await call('GET', '/v1/discounts/search?created_after=2024-02-29')).status).toBe(200);
    const expiry = await unchanged(() => call('POST', '/v1/discounts', { name: 'D', code: 'FEB31', type: 'percentage', percentage: 10, duration: 'once', expiry_date: '2030-02-31T00:00:00Z' }));
    expect(expiry.status).toBe(400);
    expect(expiry.json.message).toEqual([expect.stringMatching(/^expiry_date: /)]);
  });

  it('holds /graphql and the page forms to the same body limit as /v1', async () => {
    const big = 'x'.repeat(70 * 1024);
    const v1 = await call('POST', '/v1/products', { name: big });
    const graphql = await call('POST', '/graphql', { query: '{ __typename }', variables: { pad: big } });
    expect(v1.status).toBe(413);
    expect(graphql.status).toBe(413);
    expect(graphql.json).toMatchObject({ status: 413, code: 'payload_too_large' });
    const form = await fetch(`${service.testUrl}/checkout/ch_x`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `name=${big}` });
    expect(form.status).toBe(413);
    // Under the limit, /graphql still reads compressed and plain bodies.
    expect((await call('POST', '/graphql', { query: '{ __typename }' })).json).toEqual({ data: { __typename: 'Query' } });
  });

  it('logs no portal-link signature or other credential from a URL', async () => {
    const customer = await makeCustomer(service.contextOf({ id: storeId }));
    const link = (await call('POST', '/v1/customers/billing', { customer_id: customer.id })).json.customer_portal_link as string;
    const signature = new URL(link).searchParams.get('signature')!;
    expect(signature.length).toBeGreaterThan(10);
    expect((await fetch(link)).status).toBe(200);
    await call('GET', `/v1/customers?customer_id=${customer.id}&token=sekrit-token`);
    const requests = logLines.filter((l) => l.includes('"msg":"request"'));
    expect(requests.some((l) => l.includes(`/portal/${customer.id}`))).toBe(true);
    expect(requests.some((l) => l.includes(`customer_id=${customer.id}`))).toBe(true);
    expect(logLines.join('\n')).not.toContain(signature);
    expect(logLines.join('\n')).not.toContain('sekrit-token');
  });
});
