import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { errorBodySchema, structuredErrorBodySchema } from './error-body.js';
import { answersStructuredErrors } from './error-handler.js';
import type { OperationRoute } from './operation-route.js';
import { v1Routes } from './route-table.js';

/**
 * The OpenAPI 3.1 document of /v1, generated from what the routes run: each operation's input
 * schema (the one that validates the request) and output schema (the serializer's response
 * schema), through zod's JSON Schema output (draft 2020-12, which OpenAPI 3.1 schemas are).
 * Each operation's summary and description are its own (`summary`, `description` in its
 * definition). Nothing else here is written by hand but the frame; `GET /v1/openapi.json` serves it and
 * `npm run openapi:print` writes the committed openapi.json (a test keeps that one current).
 */

/** The committed copy (`npm run openapi:print` writes it; test/rest/openapi.test.ts keeps it current). */
export const OPENAPI_FILE = fileURLToPath(new URL('../../openapi.json', import.meta.url));

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

const SCHEMA_PATH = '#/components/schemas/';

interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters: Record<string, unknown>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, unknown>;
  security?: Record<string, string[]>[];
}

/** `/products/:id` -> `/v1/products/{id}`, and the names of its path parameters. */
function openApiPath(expressPath: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: `/v1${path}`, params };
}

/** A component's JSON Schema without the per-document keys zod writes on each. */
function component(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** The JSON Schema of each schema in `named`, under its name; shared schemas with a meta id become components of their own. */
function jsonSchemas(named: Map<string, z.ZodType>, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named) if (!registry.has(schema)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `${SCHEMA_PATH}${id}`,
    // Query parameters arrive as text and are coerced: say what they must read as.
    override: ({ zodSchema, jsonSchema }) => {
      const def = (zodSchema as { _zod?: { def?: { type?: string; coerce?: boolean } } })._zod?.def;
      if (def?.coerce && (def.type === 'number' || def.type === 'boolean') && jsonSchema.type === undefined) jsonSchema.type = def.type;
    },
  }) as { schemas: Record<string, JsonSchema> };
  // Schemas nested in these that carry a meta id of their own (OrderEntity inside a page) come
  // out as definitions of a "__shared" schema: they become components like the others.
  const hoisted = JSON.parse(JSON.stringify(schemas).replaceAll(`${SCHEMA_PATH}__shared#/$defs/`, SCHEMA_PATH)) as Record<string, JsonSchema>;
  const { __shared: shared, ...own } = hoisted;
  const all = { ...((shared?.$defs as Record<string, JsonSchema> | undefined) ?? {}), ...own };
  return Object.fromEntries(Object.entries(all).map(([id, s]) => [id, component(s)]));
}

/** The id a schema carries in zod's global registry (`.meta({ id })`), if any. */
const metaIdOf = (schema: z.ZodType): string | undefined => (z.globalRegistry.get(schema) as { id?: string } | undefined)?.id;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  servers: { url: string; description: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

function buildDocument(routes: OperationRoute[]): OpenApiDocument {
  // Component names: a schema's own meta id (OrderEntity), else the operation's name.
  const outputs = new Map<string, z.ZodType>([
    ['Error', errorBodySchema],
    ['StructuredError', structuredErrorBodySchema],
  ]);
  const inputs = new Map<string, z.ZodType>();
  const outputIdOf = new Map<OperationRoute, string>();
  const inputIdOf = new Map<OperationRoute, string>();
  for (const r of routes) {
    const outputId = metaIdOf(r.op.output) ?? `${r.op.name}.response`;
    if (!outputs.has(outputId)) outputs.set(outputId, r.op.output);
    outputIdOf.set(r, outputId);
    const inputId = `${r.op.name}.input`;
    inputs.set(inputId, r.op.input);
    inputIdOf.set(r, inputId);
  }
  const outputSchemas = jsonSchemas(outputs, 'output');
  const inputSchemas = jsonSchemas(inputs, 'input');

  const paths: OpenApiDocument['paths'] = {};
  const operationIds = new Set<string>();
  for (const r of routes) {
    const { path, params } = openApiPath(r.path);
    const input = inputSchemas[inputIdOf.get(r)!] ?? {};
    const properties = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const parameters: Record<string, unknown>[] = params.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
    let requestBody: Record<string, unknown> | undefined;
    const rest = Object.entries(properties).filter(([name]) => !params.includes(name));
    if (r.source === 'query') {
      for (const [name, schema] of rest) parameters.push({ name, in: 'query', required: required.has(name), schema });
    } else {
      const body: JsonSchema = { ...input, properties: Object.fromEntries(rest) };
      const bodyRequired = (input.required ?? []).filter((n) => !params.includes(n));
      if (bodyRequired.length) body.required = bodyRequired;
      else delete body.required;
      requestBody = { required: bodyRequired.length > 0, content: { 'application/json': { schema: body } } };
    }
    let operationId = r.op.name;
    for (let n = 2; operationIds.has(operationId); n++) operationId = `${r.op.name}.${n}`;
    operationIds.add(operationId);
    const errorRef = `${SCHEMA_PATH}${answersStructuredErrors(path) ? 'StructuredError' : 'Error'}`;
    const op: OpenApiOperation = {
      operationId,
      tags: [r.path.split('/')[1]!],
      summary: r.op.summary,
      ...(r.op.description ? { description: r.op.description } : {}),
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: {
        [String(r.status)]: { description: 'Success', content: { 'application/json': { schema: { $ref: `${SCHEMA_PATH}${outputIdOf.get(r)}` } } } },
        default: { description: 'An error: the status says which kind (400 bad input, 401 no or wrong key, 404 unknown or not yours, 409 conflict, 429 rate limited)', content: { 'application/json': { schema: { $ref: errorRef } } } },
      },
    };
    (paths[path] ??= {})[r.method] = op;
  }
  paths['/v1/openapi.json'] = {
    get: {
      operationId: 'openapi',
      tags: ['openapi'],
      summary: 'This document',
      parameters: [],
      security: [],
      responses: { '200': { description: 'The OpenAPI 3.1 document of /v1', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Billing service API',
      version: '1',
      description: 'REST /v1 of the self-hostable billing service. Amounts are whole minor units. Authenticate with the `x-api-key` header; the key decides the store and, with the listener, the environment. Writes accept an `Idempotency-Key` header.',
    },
    servers: [{ url: '/', description: 'This service (the test listener serves the test environment)' }],
    security: [{ apiKey: [] }],
    paths,
    components: {
      // Inputs are written out as parameters and bodies; only what they share stays a component.
      schemas: { ...outputSchemas, ...Object.fromEntries(Object.entries(inputSchemas).filter(([id]) => !inputs.has(id))) },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    },
  };
}

let built: { document: OpenApiDocument; text: string } | undefined;

/** The document, built once per process from the /v1 routes. */
export function openApiDocument(): OpenApiDocument {
  return (built ??= build()).document;
}

/** The document as the JSON text served and committed (two-space indented, trailing newline). */
export function openApiText(): string {
  return (built ??= build()).text;
}

function build() {
  const routes = v1Routes().flatMap((r) => (r.operation ? [r.operation] : []));
  const document = buildDocument(routes);
  return { document, text: `${JSON.stringify(document, null, 2)}\n` };
}
