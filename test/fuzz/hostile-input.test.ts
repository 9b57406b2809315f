import { gzipSync } from 'node:zlib';
import { getNamedType, isInputObjectType, isNonNullType, type GraphQLInputObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { ERROR_CODES } from '../../src/lib/errors.js';
import { CheckoutBrowser } from '../support/checkout-page.js';
import { makeCustomer, makeProduct } from '../support/factories.js';
import { pageRoutes, tenantFingerprint, v1Routes, type RouteInfo } from '../support/routes.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Bad input of every kind the hardening review found, sent to every /v1 route, every hosted
 * page route and every GraphQL mutation, all enumerated from the routers and the schema
 * themselves: a route or mutation added later is fuzzed without anyone listing it. Every answer
 * is below 500 and, on /v1, the standard error body; a refused request writes nothing.
 */

const UNKNOWN_ID = 'prod_01HZZZZZZZZZZZZZZZZZZZZZZZ';

/** Values no field may take: text PostgreSQL cannot store, alone and nested. */
const UNSTORABLE: [string, unknown][] = [
  ['U+0000', 'a\u0000b'],
  ['lone high surrogate', 'a\ud800b'],
  ['U+0000 in a nested value', { k: ['a\u0000'] }],
  ['U+0000 in a key', { 'a\u0000': 'v' }],
];

/** Values of the wrong shape or range, sent alone (without a valid rest of the input). */
const MISSHAPEN: [string, unknown][] = [
  ['year 0', '0000-01-01'],
  ['31 February', '2026-02-31'],
  ['object', { $gt: '' }],
  ['huge number', 1e308],
  ['long text', 'x'.repeat(5_000)],
];

/** Raw query-string or path values (already percent-encoded, some of them wrongly). */
const RAW: string[] = ['%00', 'cust_%00', '%ED%A0%80', '%E0%A4%A', '%', '0000-01-01', '2026-02-31', '1e400', 'x'.repeat(3_000)];

/** Whole bodies that are wrong before any field is read. */
const BODIES: [string, { body: string | Uint8Array; headers: Record<string, string> }][] = [
  ['malformed JSON', { body: '{"name":', headers: { 'content-type': 'application/json' } }],
  ['a JSON list', { body: '[1,2]', headers: { 'content-type': 'application/json' } }],
  ['a JSON string', { body: '"x"', headers: { 'content-type': 'application/json' } }],
  ['JSON null', { body: 'null', headers: { 'content-type': 'application/json' } }],
  ['not gzip though it says so', { body: 'plain', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }],
  ['an unknown encoding', { body: 'x', headers: { 'content-type': 'application/json', 'content-encoding': 'snappy' } }],
  ['an unknown charset', { body: '{}', headers: { 'content-type': 'application/json; charset=klingon' } }],
  ['gzip of U+0000', { body: new Uint8Array(gzipSync('{"name":"a\\u0000"}')), headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }],
  ['over the body limit', { body: JSON.stringify({ name: 'x'.repeat(70_000) }), headers: { 'content-type': 'application/json' } }],
];

/** A valid rest of the input for routes that write, so the bad field is the only thing wrong. */
function validBases(f: { product: string; customer: string }): Record<string, Record<string, unknown>> {
  return {
    'POST /products': { name: 'P', price: 1000, currency: 'EUR', billing_type: 'onetime' },
    'PATCH /products/:id': { name: 'P2' },
    'POST /customers': { email: 'fuzz@example.com' },
    'PATCH /customers': { customer_id: f.customer, name: 'N' },
    'POST /discounts': { name: 'D', code: 'FUZZ', type: 'percentage', percentage: 10, duration: 'once' },
    'POST /checkouts': { product_id: f.product },
    'POST /customers/billing': { customer_id: f.customer },
    'POST /webhooks': { url: 'https://example.com/hook', events: ['checkout.completed'] },
    'PATCH /webhooks/:id': { name: 'W' },
  };
}

/** The top-level field names of an operation's input schema (zod 4). */
function fieldsOf(schema: unknown): string[] {
  const def = (schema as { _zod?: { def?: Record<string, any> } })?._zod?.def;
  if (!def) return [];
  switch (def.type) {
    case 'object':
      return Object.keys(def.shape);
    case 'pipe':
      return fieldsOf(def.in);
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return fieldsOf(def.innerType);
    case 'union':
      return [...new Set((def.options as unknown[]).flatMap(fieldsOf))];
    case 'intersection':
      return [...fieldsOf(def.left), ...fieldsOf(def.right)];
    default:
      return [];
  }
}

const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
const fillPath = (path: string, values: Record<string, string>) => path.replace(/:(\w+)/g, (_m, p: string) => values[p] ?? UNKNOWN_ID);

function expectStandardError(res: { status: number; json: any; text: string }, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status < 400) return;
  expect(res.json, `${what}: not the standard error body: ${res.text.slice(0, 300)}`).toMatchObject({
    trace_id: expect.any(String),
    status: res.status,
    error: expect.any(String),
    message: expect.any(Array),
    timestamp: expect.any(Number),
  });
  expect(ERROR_CODES, what).toContain(res.json.code);
}

/** Runs `tasks` a few at a time: thousands of requests, in a few seconds. */
async function inBatches<T>(tasks: (() => Promise<T>)[], width = 16): Promise<void> {
  for (let i = 0; i < tasks.length; i += width) await Promise.all(tasks.slice(i, i + width).map((t) => t()));
}

describe('hostile input over every route, page and mutation', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let storeId: string;
  let apiKey: string;
  let fixture: { product: string; customer: string };
  const fingerprint = () => tenantFingerprint(service.db, storeId);

  beforeAll(async () => {
    // No job runner (it would write deliveries meanwhile); no rate limits, as in every test but theirs (thousands of requests from one key).
    service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    const store = await service.createStore('Fuzz');
    storeId = store.id;
    apiKey = store.test_api_key;
    call = api(service.testUrl, apiKey);
    const ctx = service.contextOf(store);
    fixture = { product: (await makeProduct(ctx)).id, customer: (await makeCustomer(ctx)).id };
  });
  afterAll(() => service?.close());

  it('finds every /v1 route with its operation', () => {
    const routes = v1Routes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => !r.operation).map((r) => r.name)).toEqual([]);
  });

  it('/v1: no 500, the standard error body, and no write, for bad input in every field, parameter and body', async () => {
    const bases = validBases(fixture);
    for (const route of v1Routes()) {
      const before = await fingerprint();
      const tasks: (() => Promise<void>)[] = [];
      const params = paramsOf(route.path);
      const fields = fieldsOf(route.operation!.input).filter((f) => !params.includes(f));
      const send = (what: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        tasks.push(async () => {
          const res = await call(route.method, `/v1${path}`, body, headers);
          expectStandardError(res, `${route.name} ${what}`);
          if (route.method !== 'GET') expect(res.status, `${route.name} ${what} was accepted`).toBeGreaterThanOrEqual(400);
        });

      for (const p of params) for (const raw of RAW) send(`path :${p}=${raw.slice(0, 20)}`, fillPath(route.path, { [p]: raw }));
      const path = fillPath(route.path, {});
      if (route.method === 'GET') {
        for (const f of fields) {
          for (const raw of RAW) send(`?${f}=${raw.slice(0, 20)}`, `${path}?${f}=${raw}`);
          send(`?${f} twice`, `${path}?${f}=a&${f}=b`);
          send(`?${f}[x]`, `${path}?${f}[x]=%00`);
        }
      } else {
        const base = bases[route.name] ?? {};
        for (const f of new Set([...fields, ...Object.keys(base)])) {
          for (const [kind, value] of UNSTORABLE) send(`${f}: ${kind}`, path, { ...base, [f]: value });
          for (const [kind, value] of MISSHAPEN) send(`${f}: ${kind} (alone)`, path, { [f]: value });
        }
        for (const [kind, { body, headers }] of BODIES) {
          tasks.push(async () => {
            const res = await fetch(`${service.testUrl}/v1${path}`, { method: route.method, headers: { ...headers, 'x-api-key': apiKey }, body: body as BodyInit });
            const text = await res.text();
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            expectStandardError({ status: res.status, json, text }, `${route.name} body ${kind}`);
            expect(res.status, `${route.name} body ${kind} was accepted`).toBeGreaterThanOrEqual(400);
          });
        }
      }
      const t0 = performance.now();
      await inBatches(tasks);
      const t1 = performance.now();
      expect(await fingerprint(), `${route.name} wrote on a refused request`).toBe(before);
      if (process.env.FUZZ_PROFILE) console.log('FUZZ', route.name, tasks.length, Math.round(t1 - t0), Math.round(performance.now() - t1));
    }
  }, 60_000);

  it('hosted pages: no 500 for bad ids, query values and form fields; a refused payment writes nothing', async () => {
    const checkout = (await call('POST', '/v1/checkouts', { product_id: fixture.product })).json;
    const checkoutPath = new URL(checkout.checkout_url).pathname;
    const routes = pageRoutes();
    expect(routes.map((r) => r.name)).toEqual(expect.arrayContaining(['GET /buy/:productId', 'GET /checkout/:id', 'POST /checkout/:id', 'GET /portal/:customerId']));
    const before = await fingerprint();
    const check = async (what: string, res: Response) => {
      const text = await res.text();
      expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (res.headers.get('content-type')?.includes('json') && res.status >= 400) expectStandardError({ status: res.status, json: JSON.parse(text), text }, what);
    };
    const tasks: (() => Promise<void>)[] = [];
    for (const route of routes) {
      for (const p of paramsOf(route.path)) {
        for (const raw of RAW) {
          tasks.push(async () => check(`${route.name} :${p}=${raw.slice(0, 20)}`, await fetch(service.testUrl + fillPath(route.path, { [p]: raw }), { method: route.method, redirect: 'manual', headers: { 'sec-fetch-site': 'same-origin' } })));
        }
      }
    }
    for (const f of ['country', 'tax_id', 'amount']) {
      for (const raw of RAW) tasks.push(async () => check(`quote ?${f}=${raw.slice(0, 20)}`, await fetch(`${service.testUrl}${checkoutPath}/quote?${f}=${raw}`)));
    }
    await inBatches(tasks);

    // The form: each field wrong in turn, the rest as a buyer fills it, with a valid anti-forgery token.
    const browser = new CheckoutBrowser(service.testUrl);
    const page = await browser.get(checkoutPath);
    expect(page.status).toBe(200);
    const buyer = { email: 'buyer@example.com', name: 'Ada', country: 'DE', card_number: '4242424242424242', card_expiry: '12/34', card_cvc: '123', tax_id: '', amount: '' };
    for (const field of Object.keys(buyer)) {
      for (const bad of ['a\u0000b', 'x'.repeat(5_000)]) {
        const res = await browser.submit(checkoutPath, page.html, { ...buyer, [field]: bad });
        expect(res.status, `form ${field}=${bad.slice(0, 10)}: ${res.html.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }
    }
    const manyFields = new URLSearchParams(Array.from({ length: 150 }, (_, i) => [`f${i}`, 'x']));
    const tooMany = await fetch(service.testUrl + checkoutPath, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: manyFields });
    expect(tooMany.status).toBe(413);
    expectStandardError({ status: tooMany.status, json: await tooMany.json(), text: '' }, 'form with 150 fields');
    const huge = await fetch(service.testUrl + checkoutPath, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `name=${'x'.repeat(70_000)}` });
    expect(huge.status).toBe(413);
    expect(await fingerprint()).toBe(before);
  });

  it('GraphQL: no internal error and a code on every error, for bad values in every mutation input field and every lookup', async () => {
    const before = await fingerprint();
    const gql = (query: string, variables: Record<string, unknown>) => call('POST', '/graphql', { query, variables });
    const checkAnswer = (what: string, res: { status: number; json: any; text: string }) => {
      expect(res.status, what).toBeLessThan(500);
      for (const e of res.json?.errors ?? []) {
        expect(ERROR_CODES, `${what}: ${JSON.stringify(e)}`).toContain(e.extensions?.code);
        expect(e.extensions.code, `${what}: ${JSON.stringify(e)}`).not.toBe('internal');
      }
    };
    const tasks: (() => Promise<void>)[] = [];
    const mutations = Object.values(schema.getMutationType()!.getFields());
    expect(mutations.length).toBeGreaterThan(10);
    for (const m of mutations) {
      const inputArg = m.args.find((a) => a.name === 'input');
      const inputType = inputArg && (getNamedType(inputArg.type) as GraphQLInputObjectType);
      const query = inputArg ? `mutation($input: ${inputArg.type.toString()}) { ${m.name}(input: $input) { __typename } }` : `mutation { ${m.name} { __typename } }`;
      if (!inputType || !isInputObjectType(inputType)) continue;
      for (const f of Object.values(inputType.getFields())) {
        for (const [kind, value] of [...UNSTORABLE, ...MISSHAPEN]) {
          tasks.push(async () => checkAnswer(`${m.name}.${f.name}: ${kind}`, await gql(query, { input: { [f.name]: value } })));
        }
      }
    }
    // Every root field that takes an id or a string, given bad ones and ids of nothing.
    for (const q of Object.values(schema.getQueryType()!.getFields())) {
      const textArgs = q.args.filter((a) => ['ID', 'String'].includes(getNamedType(a.type).name));
      for (const a of textArgs) {
        const type = a.type.toString();
        const list = type.startsWith('[') || (isNonNullType(a.type) && type.startsWith('['));
        for (const value of ['a\u0000b', '\ud800', UNKNOWN_ID, 'cust_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'whsec_x', '']) {
          const query = `query($v: ${type}) { x: ${q.name}(${a.name}: $v) { __typename } }`;
          tasks.push(async () => checkAnswer(`${q.name}(${a.name}: ${JSON.stringify(value)})`, await gql(query, { v: list ? [value] : value })));
        }
      }
    }
    await inBatches(tasks);
    expect(await fingerprint()).toBe(before);
  });
});
