import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, openApiDocument, openApiText } from '../../src/rest/openapi.js';
import { checkResponse } from '../support/openapi-check.js';
import { v1Routes } from '../support/routes.js';
import { api, startTestService, type TestService } from '../support/service.js';

/** `/products/:id` as the document writes it. */
const documented = (path: string) => `/v1${path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`;

describe('the OpenAPI document of /v1', () => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService();
    key = (await service.createStore('OpenAPI')).test_api_key;
  });
  afterAll(() => service?.close());

  it('is committed as openapi.json and current (npm run openapi:print rewrites it)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(openApiText());
  });

  it('describes every /v1 route the server has, with its method, path parameters and success status', () => {
    const doc = openApiDocument();
    const routes = v1Routes();
    expect(routes.length).toBeGreaterThan(80);
    for (const r of routes) {
      const op = doc.paths[documented(r.path)]?.[r.method.toLowerCase()];
      expect(op, `${r.name} is missing from the document`).toBeDefined();
      const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      expect(op!.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(params);
    }
    expect(Object.values(doc.paths).flatMap((ops) => Object.keys(ops)).length).toBe(routes.length + 1);
    // The input schema's rules, as the request validation applies them.
    const create = doc.paths['/v1/products']!.post!.requestBody as { content: Record<string, { schema: { required: string[]; properties: Record<string, unknown> } }> };
    expect(create.content['application/json']!.schema.required).toEqual(expect.arrayContaining(['name', 'price', 'currency', 'billing_type']));
    expect(doc.paths['/v1/events/ingest']!.post!.responses).toHaveProperty('202');
    expect(doc.paths['/v1/customer-credits/accounts']!.post!.responses.default).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/StructuredError' } } } });
  });

  it('gives every operation a human summary, not its operationId, and descriptions only where written', () => {
    const doc = openApiDocument();
    const ops = Object.values(doc.paths).flatMap((byMethod) => Object.values(byMethod));
    expect(ops.length).toBeGreaterThan(80);
    for (const op of ops) {
      expect(op.summary, op.operationId).toMatch(/\S/);
      expect(op.summary, op.operationId).not.toBe(op.operationId);
      if ('description' in op) expect(op.description, op.operationId).toMatch(/\S/);
    }
    expect(doc.paths['/v1/products']!.post!.summary).toBe('Create a product');
  });

  it('holds only schemas a JSON Schema 2020-12 validator compiles', () => {
    const doc = openApiDocument();
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    for (const id of Object.keys(doc.components.schemas)) expect(() => ajv.getSchema(`openapi.json#/components/schemas/${id}`), id).not.toThrow();
  });

  it('is served at /v1/openapi.json without a key, on both listeners', async () => {
    for (const base of [service.testUrl, service.prodUrl]) {
      const res = await fetch(`${base}/v1/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.text()).toBe(openApiText());
    }
  });

  it('catches an answer that drifts from it: an extra field, a missing one, a wrong type', async () => {
    const call = api(service.testUrl, key);
    const created = await call('POST', '/v1/products', { name: 'Drift', price: 1000, currency: 'EUR', billing_type: 'onetime' });
    expect(created.status).toBe(200);
    const path = `/v1/products/${created.json.id}`;
    expect(checkResponse('GET', path, 200, created.json)).toBeNull();
    expect(checkResponse('GET', path, 200, { ...created.json, surprise: 1 })).toMatch(/additional properties/);
    const { name: _n, ...withoutName } = created.json;
    expect(checkResponse('GET', path, 200, withoutName)).toMatch(/required property 'name'/);
    expect(checkResponse('GET', path, 200, { ...created.json, price: '1000' })).toMatch(/must be integer/);
    // Errors are checked too, against the error body.
    expect(checkResponse('GET', path, 404, { message: 'nope' })).toMatch(/required property/);
  });

  it('is rendered as a reference page on the test listener only, from files served locally', async () => {
    const page = await fetch(`${service.testUrl}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const bundle = await fetch(`${service.testUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${service.prodUrl}/docs`)).status).toBe(404);
  });
});
