import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';

describe('GraphQL /graphql', () => {
  let service: TestService;
  let testKey: string;

  beforeAll(async () => {
    service = await startTestService();
    testKey = (await service.createStore('Acme')).test_api_key;
  });
  afterAll(() => service?.close());

  const gql = (query: string, variables: Record<string, unknown> = {}, key: string | null = testKey, url = service.testUrl) =>
    api(url, key ?? undefined)('POST', '/graphql', { query, variables }).then((r) => r.json as { data?: any; errors?: any[] });

  it("lists the store's products as a connection, newest first, with paging", async () => {
    const rest = api(service.testUrl, testKey);
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      ids.push((await rest('POST', '/v1/products', { name, price: 1000, currency: 'EUR', billing_type: 'onetime' })).json.id);
    }
    const first = await gql(`{ products(first: 2) { totalCount pageInfo { hasNextPage endCursor } edges { node { id apiId name productUrl } } } }`);
    expect(first.errors).toBeUndefined();
    expect(first.data.products.totalCount).toBe(3);
    expect(first.data.products.edges.map((e: any) => e.node.name)).toEqual(['C', 'B']);
    expect(first.data.products.edges[0].node.productUrl).toBe(`${service.testUrl}/buy/${ids[2]}`);
    expect(first.data.products.pageInfo.hasNextPage).toBe(true);
    const next = await gql(`query($after: String) { products(first: 2, after: $after) { edges { node { name } } pageInfo { hasNextPage } } }`, {
      after: first.data.products.pageInfo.endCursor,
    });
    expect(next.data.products.edges.map((e: any) => e.node.name)).toEqual(['A']);
    expect(next.data.products.pageInfo.hasNextPage).toBe(false);
  });

  it('reads a customer by global id, through node() and customer()', async () => {
    const created = await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id apiId email metadata } }`, {
      input: { email: 'ada@example.com', name: 'Ada', metadata: { crmId: 7 } },
    });
    expect(created.errors).toBeUndefined();
    const { id, apiId } = created.data.createCustomer;
    expect(created.data.createCustomer.metadata).toEqual({ crmId: 7 });
    expect(Buffer.from(id, 'base64').toString()).toBe(`Customer:${apiId}`);

    const viaNode = await gql(`query($id: ID!) { node(id: $id) { __typename ... on Customer { apiId email name } } }`, { id });
    expect(viaNode.data.node).toEqual({ __typename: 'Customer', apiId, email: 'ada@example.com', name: 'Ada' });
    const viaField = await gql(`query($id: ID!) { customer(id: $id) { apiId name } }`, { id });
    expect(viaField.data.customer).toEqual({ apiId, name: 'Ada' });
    const viaRestId = await gql(`query($id: ID!) { customer(id: $id) { apiId } }`, { id: apiId });
    expect(viaRestId.data.customer.apiId).toBe(apiId);
    // The same customer through REST: one core, two surfaces.
    const rest = await api(service.testUrl, testKey)('GET', `/v1/customers?customer_id=${apiId}`);
    expect(rest.json).toMatchObject({ id: apiId, email: 'ada@example.com', metadata: { crmId: 7 } });
  });

  it('does not show other stores or the other environment through global ids', async () => {
    const created = await gql(`mutation { createCustomer(input: { email: "iso@example.com" }) { id } }`);
    const other = await service.createStore('Other');
    const fromOther = await gql(`query($id: ID!) { node(id: $id) { id } }`, { id: created.data.createCustomer.id }, other.test_api_key);
    expect(fromOther.data?.node ?? null).toBeNull();
    const direct = await gql(`query($id: ID!) { customer(id: $id) { id } }`, { id: created.data.createCustomer.id }, other.test_api_key);
    expect(direct.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('validates mutations with the same rules as REST and names the field', async () => {
    const res = await gql(`mutation { createProduct(input: { name: "x", price: 1000, currency: "EUR", billingType: recurring, billingPeriod: "custom", recurringInterval: "week" }) { id } }`);
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 400 });
    expect(res.errors?.[0]?.extensions?.fields).toEqual([expect.objectContaining({ path: 'recurringIntervalCount' })]);
    expect(await service.db.prisma.product.count({ where: { name: 'x' } })).toBe(0);

    const ok = await gql(`mutation { createProduct(input: { name: "Weekly", price: 1000, currency: "EUR", billingType: recurring, billingPeriod: "custom", recurringInterval: "week", recurringIntervalCount: 2, customFields: [{ type: text, key: "team", label: "Team", text: { minLength: 2 } }] }) { id apiId recurringInterval recurringIntervalCount customFields { key minimumLength } } }`);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.createProduct).toMatchObject({ recurringInterval: 'week', recurringIntervalCount: 2, customFields: [{ key: 'team', minimumLength: 2 }] });

    const archived = await gql(`mutation($id: ID!) { archiveProduct(id: $id) { status } }`, { id: ok.data.createProduct.id });
    expect(archived.data.archiveProduct.status).toBe('archived');
    const updated = await gql(`mutation($id: ID!) { updateProduct(id: $id, input: { name: "Renamed" }) { name } }`, { id: ok.data.createProduct.apiId });
    expect(updated.data.updateProduct.name).toBe('Renamed');
  });

  it('demands a key for data (UNAUTHENTICATED / FORBIDDEN) but lets introspection through', async () => {
    const anonymous = await gql(`{ products(first: 1) { totalCount } }`, {}, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const wrongEnv = await gql(`{ products(first: 1) { totalCount } }`, {}, testKey, service.prodUrl);
    expect(wrongEnv.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const introspection = await gql(`{ __schema { queryType { name } } }`, {}, null);
    expect(introspection.data.__schema.queryType.name).toBe('Query');
  });

  it('tells which store and environment the key belongs to', async () => {
    const res = await gql(`{ store { id name } mode }`);
    expect(res.data).toEqual({ store: { id: expect.stringMatching(/^sto_/), name: 'Acme' }, mode: 'test' });
  });

  it('serves GraphiQL to a browser without loading anything from a CDN', async () => {
    const res = await fetch(`${service.testUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<html');
    expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
  });
});
