import { getNamedType, isInputObjectType, isNonNullType, type GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { ERROR_CODES } from '../../src/lib/errors.js';
import { CheckoutBrowser } from '../support/checkout-page.js';
import { pageRoutes, v1Routes } from '../support/routes.js';
import { expectStandardError, fillPath, fuzzHarness, inBatches, MISSHAPEN, paramsOf, RAW, UNKNOWN_ID, UNSTORABLE } from './fuzz-support.js';

/** The fuzz of the hosted pages and of GraphQL (see fuzz-support.ts); /v1 routes are in the rest-*.test.ts files. */
describe('hostile input over every page and GraphQL mutation', () => {
  const h = fuzzHarness();

  it('finds every /v1 route with its operation', () => {
    const routes = v1Routes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.filter((r) => !r.operation).map((r) => r.name)).toEqual([]);
  });

  it('hosted pages: no 500 for bad ids, query values and form fields; a refused payment writes nothing', async () => {
    const checkout = (await h.call('POST', '/v1/checkouts', { product_id: h.fixture.product })).json;
    const checkoutPath = new URL(checkout.checkout_url).pathname;
    const routes = pageRoutes();
    expect(routes.map((r) => r.name)).toEqual(expect.arrayContaining(['GET /buy/:productId', 'GET /checkout/:id', 'POST /checkout/:id', 'GET /portal/:customerId', 'GET /split-invitations/:recipientId', 'GET /affiliate-invitations/:inviteId', 'GET /r/:code']));
    const before = await h.fingerprint();
    const check = async (what: string, res: Response) => {
      const text = await res.text();
      expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
      if (res.headers.get('content-type')?.includes('json') && res.status >= 400) expectStandardError({ status: res.status, json: JSON.parse(text), text }, what);
    };
    const tasks: (() => Promise<void>)[] = [];
    for (const route of routes) {
      for (const p of paramsOf(route.path)) {
        for (const raw of RAW) {
          tasks.push(async () => check(`${route.name} :${p}=${raw.slice(0, 20)}`, await fetch(h.service.testUrl + fillPath(route.path, { [p]: raw }), { method: route.method, redirect: 'manual', headers: { 'sec-fetch-site': 'same-origin' } })));
        }
      }
    }
    for (const f of ['country', 'tax_id', 'amount']) {
      for (const raw of RAW) tasks.push(async () => check(`quote ?${f}=${raw.slice(0, 20)}`, await fetch(`${h.service.testUrl}${checkoutPath}/quote?${f}=${raw}`)));
    }
    await inBatches(tasks);

    // The form: each field wrong in turn, the rest as a buyer fills it, with a valid anti-forgery token.
    const browser = new CheckoutBrowser(h.service.testUrl);
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
    const tooMany = await fetch(h.service.testUrl + checkoutPath, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: manyFields });
    expect(tooMany.status).toBe(413);
    expectStandardError({ status: tooMany.status, json: await tooMany.json(), text: '' }, 'form with 150 fields');
    const huge = await fetch(h.service.testUrl + checkoutPath, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `name=${'x'.repeat(70_000)}` });
    expect(huge.status).toBe(413);
    expect(await h.fingerprint()).toBe(before);
  });

  it('GraphQL: no internal error and a code on every error, for bad values in every mutation input field and every lookup', async () => {
    const before = await h.fingerprint();
    const gql = (query: string, variables: Record<string, unknown>) => h.call('POST', '/graphql', { query, variables });
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
        // The plain kinds of text and dates; nested text goes through the same check as variables.
        for (const [kind, value] of [...UNSTORABLE.slice(0, 3), ...MISSHAPEN.slice(1, 2)]) {
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
    expect(await h.fingerprint()).toBe(before);
  });
});
