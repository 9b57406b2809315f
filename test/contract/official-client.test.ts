import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The official client validates every response against its own models, so each call that
 * resolves here is a call whose answer has the shape existing integrations rely on.
 */
describe('official client (npm creem) against the test listener', () => {
  let service: TestService;
  let client: Creem;
  let prodKey: string;

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    prodKey = store.prod_api_key;
    client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
  });
  afterAll(() => service?.close());

  it('creates, reads, searches, updates and archives products', async () => {
    const oneTime = await client.products.create({
      name: 'E-book',
      description: 'A book',
      price: 1500,
      currency: 'EUR',
      billingType: 'onetime',
      billingPeriod: 'every-month',
      imageUrls: ['https://cdn.example.com/cover.png', 'https://cdn.example.com/back.jpg'],
      customFields: [
        { type: 'text', key: 'company', label: 'Company', optional: true, text: { minLength: 2, maxLength: 40 } },
        { type: 'checkbox', key: 'terms', label: 'Terms', checkbox: { label: 'I accept the [terms](https://example.com/terms)' } },
      ],
    });
    expect(oneTime).toMatchObject({
      object: 'product',
      mode: 'test',
      billingType: 'onetime',
      billingPeriod: 'once',
      recurringInterval: null,
      recurringIntervalCount: null,
      status: 'active',
      imageUrl: 'https://cdn.example.com/cover.png',
    });
    expect(oneTime.productUrl).toContain(oneTime.id);
    expect(oneTime.customFields?.[0]?.text).toMatchObject({ minimumLength: 2, maxLength: 40 });
    expect(oneTime.customFields?.[1]?.checkbox?.label).toContain('[terms]');

    const monthly = await client.products.create({
      name: 'Pro plan',
      description: 'Monthly',
      price: 2900,
      currency: 'USD',
      billingType: 'recurring',
      billingPeriod: 'every-three-months',
      trialPeriodDays: 14,
      // The deprecated alias is still honoured.
      customField: [{ type: 'text', key: 'team', label: 'Team name' }],
    });
    expect(monthly).toMatchObject({ recurringInterval: 'month', recurringIntervalCount: 3, trialPeriodDays: 14 });
    expect(monthly.customFields?.map((f) => f.key)).toEqual(['team']);

    const weekly = await client.products.create({
      name: 'Weekly',
      description: 'Custom cadence',
      price: 0,
      currency: 'EUR',
      billingType: 'recurring',
      billingPeriod: 'custom',
      recurringInterval: 'week',
      recurringIntervalCount: 2,
    });
    expect(weekly).toMatchObject({ price: 0, billingPeriod: 'custom', recurringInterval: 'week', recurringIntervalCount: 2 });

    const fetched = await client.products.get(monthly.id);
    expect(fetched).toEqual(monthly);

    const updated = await client.products.update(monthly.id, { name: 'Pro plan (quarterly)', billingPeriod: 'every-year' });
    expect(updated).toMatchObject({ name: 'Pro plan (quarterly)', recurringInterval: 'year', recurringIntervalCount: 1 });

    const archived = await client.products.archive(oneTime.id);
    expect(archived.status).toBe('archived');

    const all = await client.products.search(1, 2);
    expect(all.result.items).toHaveLength(2);
    expect(all.result.pagination).toMatchObject({ totalRecords: 3, totalPages: 2, currentPage: 1, nextPage: 2, prevPage: null });
    const active = await client.products.search(1, 10, 'active');
    expect(active.result.items.map((p) => p.id).sort()).toEqual([monthly.id, weekly.id].sort());
    const archivedOnly = await client.products.search(1, 10, 'archived');
    expect(archivedOnly.result.items.map((p) => p.id)).toEqual([oneTime.id]);
  });

  it('creates, reads, updates and lists customers', async () => {
    const created = await client.customers.create({ email: 'Ada@Example.com', name: 'Ada', metadata: { plan: 'gold' }, externalId: 'crm-1' });
    expect(created).toMatchObject({ object: 'customer', email: 'ada@example.com', name: 'Ada', metadata: { plan: 'gold' }, externalId: 'crm-1', country: null });

    expect(await client.customers.retrieve(created.id)).toEqual(created);
    expect(await client.customers.retrieve(undefined, 'ada@example.com')).toEqual(created);

    const updated = await client.customers.update({ customerId: created.id, name: 'Ada Lovelace', metadata: { seats: 3 } });
    expect(updated).toMatchObject({ name: 'Ada Lovelace', metadata: { plan: 'gold', seats: 3 } });

    await client.customers.create({ email: 'grace@example.com', name: 'Grace' });
    const page = await client.customers.list(1, 1);
    expect(page.result.items).toHaveLength(1);
    expect(page.result.pagination).toMatchObject({ totalRecords: 2, totalPages: 2, currentPage: 1, nextPage: 2 });
    const second = await client.customers.list(2, 1);
    expect(second.result.pagination).toMatchObject({ currentPage: 2, nextPage: null, prevPage: 1 });
    expect(new Set([page.result.items[0]!.id, second.result.items[0]!.id]).size).toBe(2);
  });

  it('retries a create with the same Idempotency-Key without creating twice', async () => {
    const body = { name: 'Once', description: '', price: 500, currency: 'EUR' as const, billingType: 'onetime' as const };
    const first = await client.products.create(body, 'key-123');
    const again = await client.products.create(body, 'key-123');
    expect(again.id).toBe(first.id);
  });

  it('refuses the production key on the test listener', async () => {
    const wrong = new Creem({ apiKey: prodKey, serverURL: service.testUrl });
    await expect(wrong.products.search(1, 10)).rejects.toMatchObject({ statusCode: 403 });
  });
});
