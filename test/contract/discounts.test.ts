import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';

/** Discount operations through the official client, which validates every answer against its models. */
describe('discounts through the official client', () => {
  let service: TestService;
  let client: Creem;
  let raw: ReturnType<typeof api>;
  let otherStore: Creem;
  let prodClient: Creem;
  let productId: string;

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    const other = await service.createStore('Other');
    client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
    raw = api(service.testUrl, store.test_api_key);
    otherStore = new Creem({ apiKey: other.test_api_key, serverURL: service.testUrl });
    prodClient = new Creem({ apiKey: store.prod_api_key, serverURL: service.prodUrl });
    productId = (await client.products.create({ name: 'E-book', description: '', price: 1500, currency: 'EUR', billingType: 'onetime' })).id;
  });
  afterAll(() => service?.close());

  it('creates, gets, searches and deletes discounts', async () => {
    const percent = await client.discounts.create({ name: 'Launch', type: 'percentage', percentage: 25, duration: 'forever', appliesToProducts: [] });
    expect(percent).toMatchObject({ object: 'discount', mode: 'test', status: 'active', type: 'percentage', percentage: 25, amount: 25, duration: 'forever', appliesToProducts: [], redeemCount: 0 });
    expect(percent.code).toMatch(/^[A-Z2-9]{8}$/);

    const expiryDate = new Date('2099-01-01T00:00:00.000Z');
    const fixed = await client.discounts.create({
      name: 'Five off',
      code: 'five-off',
      type: 'fixed',
      amount: 500,
      currency: 'EUR',
      duration: 'repeating',
      durationInMonths: 3,
      maxRedemptions: 10,
      expiryDate,
      appliesToProducts: [productId],
    });
    expect(fixed).toMatchObject({ code: 'FIVE-OFF', amount: 500, currency: 'EUR', durationInMonths: 3, maxRedemptions: 10, expiryDate, appliesToProducts: [productId] });
    expect(fixed.percentage).toBeUndefined();

    expect(await client.discounts.get(fixed.id)).toEqual(fixed);
    expect(await client.discounts.get(undefined, 'Five-Off')).toEqual(fixed);

    const all = await client.discounts.search(1, 10);
    expect(all.result.items.map((d) => d.id)).toEqual([fixed.id, percent.id]);
    expect(all.result.pagination).toMatchObject({ totalRecords: 2, totalPages: 1, currentPage: 1, nextPage: null });
    expect((await client.discounts.search(1, 10, undefined, undefined, 'fixed')).result.items.map((d) => d.id)).toEqual([fixed.id]);
    expect((await client.discounts.search(1, 1)).result.pagination).toMatchObject({ totalPages: 2, nextPage: 2 });

    const deleted = await client.discounts.delete(percent.id);
    expect(deleted).toMatchObject({ id: percent.id, status: 'deleted' });
    expect((await client.discounts.get(percent.id)).status).toBe('deleted');
    expect((await client.discounts.search(1, 10, undefined, 'active')).result.items.map((d) => d.id)).toEqual([fixed.id]);
    expect((await client.discounts.search(1, 10, undefined, 'deleted')).result.items.map((d) => d.id)).toEqual([percent.id]);
  });

  it('answers 400 naming the field, and writes nothing', async () => {
    await client.discounts.create({ name: 'Taken', code: 'TAKEN', type: 'percentage', percentage: 10, duration: 'once', appliesToProducts: [] });
    const before = (await client.discounts.search(1, 100)).result.pagination.totalRecords;

    const taken = await raw('POST', '/v1/discounts', { name: 'Again', code: 'taken', type: 'percentage', percentage: 10, duration: 'once', applies_to_products: [] });
    expect(taken.status).toBe(400);
    expect(taken.json.message).toEqual([expect.stringMatching(/^code: .*already exists/)]);

    const unknown = await raw('POST', '/v1/discounts', { name: 'X', type: 'percentage', percentage: 10, duration: 'once', applies_to_products: [productId, 'prod_missing'] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toEqual([expect.stringContaining('applies_to_products[1]')]);

    const months = await raw('POST', '/v1/discounts', { name: 'X', type: 'fixed', amount: 100, currency: 'EUR', duration: 'forever', duration_in_months: 2, applies_to_products: [] });
    expect(months.status).toBe(400);
    expect(months.json.message).toEqual([expect.stringContaining('duration_in_months')]);

    await expect(client.discounts.create({ name: 'X', type: 'percentage', percentage: 150, duration: 'once', appliesToProducts: [] })).rejects.toMatchObject({ statusCode: 400 });
    expect((await client.discounts.search(1, 100)).result.pagination.totalRecords).toBe(before);
  });

  it('hides discounts of other stores and of the other environment (404)', async () => {
    const mine = await client.discounts.create({ name: 'Mine', code: 'MINE', type: 'percentage', percentage: 10, duration: 'once', appliesToProducts: [] });
    for (const foreign of [otherStore, prodClient]) {
      await expect(foreign.discounts.get(mine.id)).rejects.toMatchObject({ statusCode: 404 });
      await expect(foreign.discounts.get(undefined, 'MINE')).rejects.toMatchObject({ statusCode: 404 });
      await expect(foreign.discounts.delete(mine.id)).rejects.toMatchObject({ statusCode: 404 });
      expect((await foreign.discounts.search(1, 10)).result.items).toEqual([]);
    }
    expect((await client.discounts.get(mine.id)).status).toBe('active');
    await expect(client.discounts.get('disc_missing')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('offers the same operations over GraphQL, through the same rules', async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}) =>
      raw('POST', '/graphql', { query, variables }).then((r) => r.json as { data?: any; errors?: any[] });
    const fields = 'id code type amount { amount currency } percentage status expiryDate maxRedemptions redeemCount duration durationInMonths appliesToProducts { id name }';

    const created = await gql(`mutation($input: CreateDiscountInput!) { createDiscount(input: $input) { discount { ${fields} } userErrors { field code } } }`, {
      input: { name: 'GQL', code: 'gql-10', type: 'percentage', percentage: 10, duration: 'repeating', durationInMonths: 2, maxRedemptions: 3, expiryDate: null, appliesToProducts: [productId] },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createDiscount.userErrors).toEqual([]);
    const d = created.data.createDiscount.discount;
    expect(d).toMatchObject({ code: 'GQL-10', type: 'percentage', amount: null, percentage: 10, status: 'active', expiryDate: null, maxRedemptions: 3, redeemCount: 0, duration: 'repeating', durationInMonths: 2 });
    expect(d.appliesToProducts).toEqual([{ id: productId, name: 'E-book' }]);
    expect((await client.discounts.get(d.id)).code).toBe('GQL-10');

    const byCode = await gql(`query { discount(code: "gql-10") { id } }`);
    expect(byCode.data.discount.id).toBe(d.id);

    const rejected = await gql(`mutation { createDiscount(input: { name: "Bad", type: fixed, amount: 100, duration: once }) { discount { id } userErrors { field code } } }`);
    expect(rejected.data.createDiscount).toEqual({ discount: null, userErrors: [{ field: 'currency', code: 'validation_failed' }] });

    const list = await gql(`query { discounts(first: 1, type: percentage) { totalCount edges { node { id } } } }`);
    expect(list.errors).toBeUndefined();
    expect(list.data.discounts.edges.map((e: any) => e.node.id)).toEqual([d.id]);

    const deleted = await gql(`mutation($id: ID!) { deleteDiscount(input: { id: $id }) { discount { id status } userErrors { code } } }`, { id: d.id });
    expect(deleted.data.deleteDiscount).toEqual({ discount: { id: d.id, status: 'deleted' }, userErrors: [] });
    const foreign = await api(service.testUrl, (await service.createStore('Third')).test_api_key)('POST', '/graphql', {
      query: `query($id: ID!) { discount(id: $id) { id } }`,
      variables: { id: d.id },
    });
    expect(foreign.json).toEqual({ data: { discount: null } });
  });
});
