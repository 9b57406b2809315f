import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * No lost updates: concurrent PATCHes of different fields of one resource all land, and
 * concurrent metadata merges keep every key (each update locks the row or writes only its
 * own fields). Run on both databases; PostgreSQL is where the requests really overlap.
 */
describe('concurrent updates of one resource', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;

  beforeAll(async () => {
    service = await startTestService();
    call = api(service.testUrl, (await service.createStore('Acme')).test_api_key);
  });
  afterAll(() => service?.close());

  it('product: 30 pairs of PATCH {price} and PATCH {name} at once keep both changes every time', async () => {
    const ids = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => (await call('POST', '/v1/products', { name: `P${i}`, price: 1000, currency: 'EUR', billing_type: 'onetime' })).json.id as string),
    );
    const results = await Promise.all(
      ids.flatMap((id, i) => [call('PATCH', `/v1/products/${id}`, { price: 2000 + i }), call('PATCH', `/v1/products/${id}`, { name: `Renamed ${i}` })]),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const after = await Promise.all(ids.map((id) => call('GET', `/v1/products/${id}`)));
    after.forEach((res, i) => expect(res.json).toMatchObject({ price: 2000 + i, name: `Renamed ${i}` }));
  });

  it('customer: 30 metadata merges of different keys at once keep all 30 keys', async () => {
    const customer = (await call('POST', '/v1/customers', { email: 'merge@example.com', metadata: { kept: 'yes' } })).json;
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call('PATCH', '/v1/customers', { customer_id: customer.id, metadata: { [`k${i}`]: i } })),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const after = (await call('GET', `/v1/customers?customer_id=${customer.id}`)).json;
    expect(after.metadata).toEqual({ kept: 'yes', ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, i])) });
  });

  it('customer: a name change and a metadata merge at once both land', async () => {
    const customers = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', '/v1/customers', { email: `pair${i}@example.com` }).then((r) => r.json.id as string)));
    await Promise.all(
      customers.flatMap((id, i) => [
        call('PATCH', '/v1/customers', { customer_id: id, name: `Name ${i}` }),
        call('PATCH', '/v1/customers', { customer_id: id, metadata: { n: i } }),
      ]),
    );
    const after = await Promise.all(customers.map((id) => call('GET', `/v1/customers?customer_id=${id}`)));
    after.forEach((res, i) => expect(res.json).toMatchObject({ name: `Name ${i}`, metadata: { n: i } }));
  });

  it('webhook endpoint: PATCH {name} and PATCH {events} at once keep both', async () => {
    const ids = await Promise.all(
      Array.from({ length: 10 }, async (_, i) =>
        (await call('POST', '/v1/webhooks', { url: `https://example.com/hook/${i}`, events: ['checkout.completed'] })).json.id as string,
      ),
    );
    await Promise.all(
      ids.flatMap((id, i) => [
        call('PATCH', `/v1/webhooks/${id}`, { name: `Hook ${i}` }),
        call('PATCH', `/v1/webhooks/${id}`, { events: ['subscription.paid', 'refund.created'] }),
      ]),
    );
    const after = await Promise.all(ids.map((id) => call('GET', `/v1/webhooks/${id}`)));
    after.forEach((res, i) => expect(res.json).toMatchObject({ name: `Hook ${i}`, events: ['subscription.paid', 'refund.created'] }));
  });
});
