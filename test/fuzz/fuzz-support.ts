import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect } from 'vitest';
import { ERROR_CODES } from '../../src/lib/errors.js';
import { makeCustomer, makeProduct } from '../support/factories.js';
import { tenantFingerprint, v1Routes, type RouteInfo } from '../support/routes.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Bad input of every kind the hardening review found, sent to every /v1 route, every hosted
 * page route and every GraphQL mutation, all enumerated from the routers and the schema
 * themselves: a route or mutation added later is fuzzed without anyone listing it. Every answer
 * is below 500 and, on /v1, the standard error body; a refused request writes nothing.
 * The routes are split over several test files, so that workers share the load.
 */

export const UNKNOWN_ID = 'prod_01HZZZZZZZZZZZZZZZZZZZZZZZ';

/** Values no field may take: text PostgreSQL cannot store, alone and nested. */
export const UNSTORABLE: [string, unknown][] = [
  ['U+0000', 'a\u0000b'],
  ['lone high surrogate', 'a\ud800b'],
  ['U+0000 in a nested value', { k: ['a\u0000'] }],
  ['U+0000 in a key', { 'a\u0000': 'v' }],
];

/** Values of the wrong shape or range, sent alone (without a valid rest of the input). */
export const MISSHAPEN: [string, unknown][] = [
  ['year 0', '0000-01-01'],
  ['31 February', '2026-02-31'],
  ['object', { $gt: '' }],
];

/** Raw query-string or path values (already percent-encoded, some of them wrongly). */
export const RAW: string[] = ['%00', 'cust_%00', '%ED%A0%80', '%E0%A4%A', '%', '0000-01-01', '2026-02-31'];

/** Whole bodies that are wrong before any field is read. */
export const BODIES: [string, { body: string | Uint8Array; headers: Record<string, string> }][] = [
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
export function validBases(f: { product: string; customer: string }): Record<string, Record<string, unknown>> {
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
export function fieldsOf(schema: unknown): string[] {
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

export const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
export const fillPath = (path: string, values: Record<string, string>) => path.replace(/:(\w+)/g, (_m, p: string) => values[p] ?? UNKNOWN_ID);

export function expectStandardError(res: { status: number; json: any; text: string }, what: string) {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status < 400) return;
  // The customer-credits and usage-metering operations answer with the client's structured body instead.
  if (/(^|\s)\/(customer-credits|meters|events)(\/|\s|\?|$)/.test(what)) {
    expect(res.json?.error, `${what}: not the structured error body: ${res.text.slice(0, 300)}`).toMatchObject({
      type: expect.any(String),
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect(ERROR_CODES, what).toContain(res.json.error.code);
    return;
  }
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
export async function inBatches<T>(tasks: (() => Promise<T>)[], width = 16): Promise<void> {
  for (let i = 0; i < tasks.length; i += width) await Promise.all(tasks.slice(i, i + width).map((t) => t()));
}


export interface FuzzHarness {
  service: TestService;
  call: ReturnType<typeof api>;
  storeId: string;
  apiKey: string;
  fixture: { product: string; customer: string };
  fingerprint(): Promise<string>;
}

/** A service and a store with a product and a customer, for one fuzz file. */
export function fuzzHarness(): FuzzHarness {
  const h = {} as FuzzHarness;
  beforeAll(async () => {
    // No job runner (it would write deliveries meanwhile); no rate limits, as in every test but theirs (thousands of requests from one key).
    h.service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    const store = await h.service.createStore('Fuzz');
    h.storeId = store.id;
    h.apiKey = store.test_api_key;
    h.call = api(h.service.testUrl, h.apiKey);
    const ctx = h.service.contextOf(store);
    h.fixture = { product: (await makeProduct(ctx)).id, customer: (await makeCustomer(ctx)).id };
    h.fingerprint = () => tenantFingerprint(h.service.db, h.storeId);
  });
  afterAll(() => h.service?.close());
  return h;
}

/** Every request of the /v1 fuzz for one route. */
export function v1FuzzTasks(h: FuzzHarness, route: RouteInfo): (() => Promise<void>)[] {
  const bases = validBases(h.fixture);
  const tasks: (() => Promise<void>)[] = [];
  const params = paramsOf(route.path);
  const fields = fieldsOf(route.operation!.input).filter((f) => !params.includes(f));
  const send = (what: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    tasks.push(async () => {
      const res = await h.call(route.method, `/v1${path}`, body, headers);
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
    return tasks;
  }
  const base = bases[route.name] ?? {};
  // Every field gets the plain kinds; the nested ones (in an object, in a key) go through the
  // same scan of the whole input, so the route's first field carries them for all.
  [...new Set([...fields, ...Object.keys(base)])].forEach((f, i) => {
    for (const [kind, value] of i === 0 ? UNSTORABLE : UNSTORABLE.slice(0, 2)) send(`${f}: ${kind}`, path, { ...base, [f]: value });
    for (const [kind, value] of MISSHAPEN) send(`${f}: ${kind} (alone)`, path, { [f]: value });
  });
  for (const [kind, { body, headers }] of BODIES) {
    tasks.push(async () => {
      const res = await fetch(`${h.service.testUrl}/v1${path}`, { method: route.method, headers: { ...headers, 'x-api-key': h.apiKey }, body: body as BodyInit });
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
  return tasks;
}

/**
 * The /v1 fuzz over the routes `select` picks: no 500, the standard error body, and nothing
 * written. Whether anything was written is checked once over all the routes (a check per route
 * doubled the time); FUZZ_PER_ROUTE=1 checks after each route, to find the one that wrote.
 */
export async function fuzzV1Routes(h: FuzzHarness, select: (r: RouteInfo, index: number) => boolean): Promise<number> {
  const routes = v1Routes().filter(select);
  const perRoute = process.env.FUZZ_PER_ROUTE === '1';
  const start = await h.fingerprint();
  for (const route of routes) {
    await inBatches(v1FuzzTasks(h, route));
    if (perRoute) expect(await h.fingerprint(), `${route.name} wrote on a refused request`).toBe(start);
  }
  expect(await h.fingerprint(), `a refused request wrote (FUZZ_PER_ROUTE=1 names the route) among: ${routes.map((r) => r.name).join(', ')}`).toBe(start);
  return routes.length;
}
