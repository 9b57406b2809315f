import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_GRAPH } from '../support/customer-graph-query.js';
import { makeProduct, makeSubscription } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * What a GraphQL request may ask for is bounded before it runs: cost (page sizes times what
 * each item costs), depth, aliases, tokens and page sizes. Refusals carry `extensions.code`
 * and touch no database; ids of nothing are null, never errors.
 */
describe('GraphQL limits and lookups', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let statements: string[] | undefined;
  let foreign: { product: string; prodProduct: string };
  let own: { product: string; customer: string };

  beforeAll(async () => {
    service = await startTestService({ env: { JOB_RUNNER: 'off', RATE_LIMIT: 'on' }, onStatement: (sql) => statements?.push(sql) });
    const store = await service.createStore('Mine');
    const other = await service.createStore('Theirs');
    call = api(service.testUrl, store.test_api_key);
    const ctx = service.contextOf(store);
    const sub = await makeSubscription(ctx);
    own = { product: (await makeProduct(ctx)).id, customer: sub.customer.id };
    foreign = { product: (await makeProduct(service.contextOf(other))).id, prodProduct: (await makeProduct(service.contextOf(store, 'prod'))).id };
  });
  afterAll(() => service?.close());

  const gql = (query: string, variables?: Record<string, unknown>) => call('POST', '/graphql', { query, variables });

  async function sqlDuring<T>(fn: () => Promise<T>): Promise<{ value: T; sql: string[] }> {
    const sql: string[] = [];
    statements = sql;
    try {
      return { value: await fn(), sql };
    } finally {
      statements = undefined;
    }
  }

  it('answers null for ids of another store, environment or type and for missing ids; nodes keeps the list', async () => {
    const missing = 'prod_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    for (const id of [foreign.product, foreign.prodProduct, missing, 'whsec_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'nonsense', own.customer.replace('cust_', 'sub_')]) {
      const res = await gql('query($id: ID!) { node(id: $id) { id } product(id: $id) { id } }', { id });
      expect(res.json, id).toEqual({ data: { node: null, product: null } });
    }
    const list = await gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [own.product, foreign.product, missing, own.customer] });
    expect(list.json).toEqual({ data: { nodes: [{ id: own.product }, null, null, { id: own.customer }] } });
  });

  it('runs the customer graph query (100 subscriptions with their transactions) within the limits', async () => {
    const res = await gql(CUSTOMER_GRAPH, { id: own.customer });
    expect(res.json.errors).toBeUndefined();
    expect(res.json.data.customer.subscriptions.totalCount).toBe(1);
    expect(Number(res.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
  });

  it('refuses a query over the cost limit before anything runs, without a database statement', async () => {
    const expensive = '{ customers(first: 100) { edges { node { subscriptions(first: 100) { edges { node { transactions(first: 100) { totalCount } } } } } } } }';
    const { value: res, sql } = await sqlDuring(() => gql(expensive));
    expect(res.status).toBe(400);
    expect(res.json.data).toBeUndefined();
    expect(res.json.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/cost \d+ is over the limit of 5000/), extensions: expect.objectContaining({ code: 'query_too_complex' }) })]);
    expect(sql).toEqual([]);
    // The counter does see statements: the same shape, smaller pages, runs.
    const cheap = await sqlDuring(() => gql('{ customers(first: 5) { edges { node { subscriptions(first: 5) { edges { node { transactions(first: 5) { totalCount } } } } } } } }'));
    expect(cheap.value.json.errors).toBeUndefined();
    expect(cheap.sql.length).toBeGreaterThan(0);
  });

  it('refuses deep, alias-heavy and overlong queries with query_too_complex', async () => {
    const deep = '{ customers(first: 1) { edges { node { subscriptions(first: 1) { edges { node { transactions(first: 1) { edges { node { order { transaction { order { id } } } } } } } } } } } } }';
    const aliases = `{ ${Array.from({ length: 31 }, (_, i) => `a${i}: customers(first: 1) { totalCount }`).join(' ')} }`;
    const tokens = `{ ${Array.from({ length: 2_001 }, () => '__typename').join(' ')} }`;
    for (const [what, query] of [['depth', deep], ['aliases', aliases], ['tokens', tokens]] as const) {
      const res = await gql(query);
      // Too many tokens stops the parser: yoga answers parse errors 200 under `Accept: application/json`, as the GraphQL-over-HTTP spec has it.
      expect(res.status, what).toBe(what === 'tokens' ? 200 : 400);
      expect(res.json.data, what).toBeUndefined();
      expect(res.json.errors?.[0]?.extensions?.code, `${what}: ${JSON.stringify(res.json.errors)}`).toBe('query_too_complex');
    }
  });

  it('bounds connection pages to 1..100', async () => {
    for (const args of ['first: 0', 'first: 101', 'last: 500', 'first: -1']) {
      const res = await gql(`{ customers(${args}) { totalCount } }`);
      expect(res.status, args).toBe(400);
      expect(res.json.errors[0].extensions.code, args).toBe('validation_failed');
      expect(res.json.errors[0].message, args).toMatch(/must be between 1 and 100/);
    }
    expect((await gql('{ customers(first: 100) { totalCount } }')).json.errors).toBeUndefined();
  });

  it('gives every error that is the caller’s fault a code: parse errors, unknown fields, bad variables, text that cannot be stored', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['{ customers(first: ', {}],
      ['{ nope }', {}],
      ['query($id: ID!) { product(id: $id) { id } }', {}],
      ['query($id: ID!) { product(id: $id) { id } }', { id: 'prod_\u0000' }],
      ['{ product(id: "prod_\\u0000") { id } }', {}],
      ['mutation($i: CreateCustomerInput!) { createCustomer(input: $i) { customer { id } } }', { i: { email: 'a@b.co', name: '\ud800' } }],
    ];
    for (const [query, variables] of cases) {
      const res = await gql(query, variables);
      expect(res.status, query).toBeLessThan(500);
      expect(res.json.errors?.length, query).toBeGreaterThan(0);
      for (const e of res.json.errors) expect(['malformed_request', 'validation_failed'], `${query}: ${JSON.stringify(e)}`).toContain(e.extensions?.code);
    }
    const bare = await fetch(`${service.testUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }","extra":1}' });
    expect((await bare.json()).errors[0].extensions.code).toBe('malformed_request');
  });
});
