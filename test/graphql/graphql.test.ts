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

  const gql = (query: string, variables: Record<string, unknown> = {}, key: string | null = testKey, url = service.testUrl, headers: Record<string, string> = {}) =>
    api(url, key ?? undefined)('POST', '/graphql', { query, variables }, headers).then((r) => r.json as { data?: any; errors?: any[] });

  it("lists the store's products as a connection, newest first, with paging", async () => {
    const rest = api(service.testUrl, testKey);
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C']) {
      ids.push((await rest('POST', '/v1/products', { name, price: 1000, currency: 'EUR', billing_type: 'onetime' })).json.id);
    }
    const first = await gql(`{ products(first: 2) { totalCount pageInfo { hasNextPage endCursor } edges { node { id name productUrl price { amount currency } billingPeriod } } } }`);
    expect(first.errors).toBeUndefined();
    expect(first.data.products.totalCount).toBe(3);
    expect(first.data.products.edges.map((e: any) => e.node.name)).toEqual(['C', 'B']);
    // One id per object: the global id is the /v1 id.
    expect(first.data.products.edges[0].node).toMatchObject({ id: ids[2], productUrl: `${service.testUrl}/buy/${ids[2]}`, price: { amount: '1000', currency: 'EUR' }, billingPeriod: 'once' });
    expect(first.data.products.pageInfo.hasNextPage).toBe(true);
    const next = await gql(`query($after: String) { products(first: 2, after: $after) { edges { node { name } } pageInfo { hasNextPage } } }`, {
      after: first.data.products.pageInfo.endCursor,
    });
    expect(next.data.products.edges.map((e: any) => e.node.name)).toEqual(['A']);
    expect(next.data.products.pageInfo.hasNextPage).toBe(false);
  });

  it('reads a customer by its id, through node() and customer()', async () => {
    const created = await gql(`mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id email metadata } userErrors { field message code } } }`, {
      input: { email: 'ada@example.com', name: 'Ada', metadata: { crmId: 7 } },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createCustomer.userErrors).toEqual([]);
    const { id } = created.data.createCustomer.customer;
    expect(id).toMatch(/^cust_/);
    expect(created.data.createCustomer.customer.metadata).toEqual({ crmId: 7 });

    const viaNode = await gql(`query($id: ID!) { node(id: $id) { __typename ... on Customer { id email name } } }`, { id });
    expect(viaNode.data.node).toEqual({ __typename: 'Customer', id, email: 'ada@example.com', name: 'Ada' });
    const viaField = await gql(`query($id: ID!) { customer(id: $id) { id name } }`, { id });
    expect(viaField.data.customer).toEqual({ id, name: 'Ada' });
    const viaEmail = await gql(`{ customer(email: "ada@example.com") { id } }`);
    expect(viaEmail.data.customer.id).toBe(id);
    // The same customer through REST: one core, two surfaces.
    const rest = await api(service.testUrl, testKey)('GET', `/v1/customers?customer_id=${id}`);
    expect(rest.json).toMatchObject({ id, email: 'ada@example.com', metadata: { crmId: 7 } });
  });

  it('answers null, never an error, for ids of other stores, the other environment, other types or nothing', async () => {
    const created = await gql(`mutation { createCustomer(input: { email: "iso@example.com" }) { customer { id } } }`);
    const id = created.data.createCustomer.customer.id;
    const other = await service.createStore('Other');
    const fromOther = await gql(`query($id: ID!) { node(id: $id) { id } customer(id: $id) { id } }`, { id }, other.test_api_key);
    expect(fromOther.errors).toBeUndefined();
    expect(fromOther.data).toEqual({ node: null, customer: null });
    const fromProd = await gql(`query($id: ID!) { node(id: $id) { id } customer(id: $id) { id } }`, { id }, other.prod_api_key, service.prodUrl);
    expect(fromProd.data).toEqual({ node: null, customer: null });
    // One missing id does not null the list: the others are still there.
    const mixed = await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [id, 'prod_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'garbage', 'cust_01HZZZZZZZZZZZZZZZZZZZZZZZ'] });
    expect(mixed.errors).toBeUndefined();
    expect(mixed.data.nodes).toEqual([{ id }, null, null, null]);
    const wrongType = await gql(`query($id: ID!) { product(id: $id) { id } }`, { id });
    expect(wrongType).toEqual({ data: { product: null } });
  });

  it('reports the caller’s mistakes as userErrors with the same field names and codes as REST, and writes nothing', async () => {
    const res = await gql(
      `mutation { createProduct(input: { name: "x", price: 1000, currency: "EUR", billingType: recurring, billingPeriod: custom, recurringInterval: week }) { product { id } userErrors { field message code } } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createProduct.product).toBeNull();
    expect(res.data.createProduct.userErrors).toEqual([{ field: 'recurringIntervalCount', message: expect.any(String), code: 'validation_failed' }]);
    expect(await service.db.prisma.product.count({ where: { name: 'x' } })).toBe(0);

    const ok = await gql(
      `mutation { createProduct(input: { name: "Weekly", price: "1000", currency: "EUR", billingType: recurring, billingPeriod: custom, recurringInterval: week, recurringIntervalCount: 2, customFields: [{ type: text, key: "team", label: "Team", text: { minLength: 2 } }] }) { product { id recurringInterval recurringIntervalCount customFields { key minimumLength } } userErrors { code } } }`,
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.createProduct.product).toMatchObject({ recurringInterval: 'week', recurringIntervalCount: 2, customFields: [{ key: 'team', minimumLength: 2 }] });
    const productId = ok.data.createProduct.product.id;

    const archived = await gql(`mutation($id: ID!) { archiveProduct(input: { id: $id }) { product { status } userErrors { code } } }`, { id: productId });
    expect(archived.data.archiveProduct).toEqual({ product: { status: 'archived' }, userErrors: [] });
    // An explicit null means "not given": the name stays.
    const updated = await gql(`mutation($id: ID!) { updateProduct(input: { id: $id, name: "Renamed", description: null }) { product { name description } } }`, { id: productId });
    expect(updated.data.updateProduct.product).toEqual({ name: 'Renamed', description: '' });
    const missing = await gql(`mutation { updateProduct(input: { id: "prod_01HZZZZZZZZZZZZZZZZZZZZZZZ", name: "y" }) { product { id } userErrors { field code } } }`);
    expect(missing.data.updateProduct).toEqual({ product: null, userErrors: [{ field: null, code: 'not_found' }] });
  });

  it('takes closed sets as enums with the /v1 values, and amounts as strings beyond 32 bits', async () => {
    const res = await gql(
      `mutation { createProduct(input: { name: "Big", price: "900719925474099", currency: "EUR", billingType: recurring, billingPeriod: every_three_months, taxCategory: digital_goods_service }) { product { id price { amount } billingPeriod taxCategory recurringInterval } userErrors { code } } }`,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.createProduct.product).toMatchObject({ price: { amount: '900719925474099' }, billingPeriod: 'every_three_months', taxCategory: 'digital_goods_service', recurringInterval: 'month' });
    const rest = await api(service.testUrl, testKey)('GET', `/v1/products/${res.data.createProduct.product.id}`);
    expect(rest.json).toMatchObject({ price: 900719925474099, billing_period: 'every-three-months', tax_category: 'digital-goods-service' });
  });

  it('honours Idempotency-Key on mutations: a retry answers the first result and writes once', async () => {
    const create = (email: string) =>
      gql(`mutation($email: EmailAddress!) { createCustomer(input: { email: $email }) { customer { id } userErrors { code } } }`, { email }, testKey, service.testUrl, { 'idempotency-key': 'gql-retry-1' });
    const first = await create('idem-gql@example.com');
    const again = await create('idem-gql@example.com');
    expect(again.data.createCustomer.customer.id).toBe(first.data.createCustomer.customer.id);
    expect(await service.db.prisma.customer.count({ where: { email: 'idem-gql@example.com' } })).toBe(1);
    const reused = await create('other-gql@example.com');
    expect(reused.data.createCustomer).toEqual({ customer: null, userErrors: [{ code: 'idempotency_key_reused' }] });
  });

  it('gives request errors (syntax, unknown fields, bad variables) the same codes as REST', async () => {
    const syntax = await gql(`{ products(first: 1) { totalCount }`);
    expect(syntax.errors?.[0]?.extensions?.code).toBe('malformed_request');
    const unknownField = await gql(`{ products(first: 1) { nonsense } }`);
    expect(unknownField.errors?.[0]?.extensions?.code).toBe('validation_failed');
    const badVariable = await gql(`query($s: ProductStatus) { products(first: 1, status: $s) { totalCount } }`, { s: 'deleted' });
    expect(badVariable.errors?.[0]?.extensions?.code).toBe('validation_failed');
    expect(badVariable.data).toBeUndefined();
  });

  it('demands a key for data (unauthenticated / forbidden) but lets introspection through', async () => {
    const anonymous = await gql(`{ products(first: 1) { totalCount } }`, {}, null);
    expect(anonymous.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    const wrongEnv = await gql(`{ products(first: 1) { totalCount } }`, {}, testKey, service.prodUrl);
    expect(wrongEnv.errors?.[0]?.extensions?.code).toBe('forbidden');
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
