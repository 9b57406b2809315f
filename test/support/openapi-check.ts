import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/rest/openapi.js';

/**
 * Every /v1 answer a test service gives is checked against the OpenAPI document (the one
 * `GET /v1/openapi.json` serves): the operation is found by method and path, the schema by
 * status (or the document's `default`, the error body). What does not match is collected and
 * fails the test file when its service closes, so the document cannot drift from the server.
 */
export interface ResponseCheck {
  /** Answers that did not match, one line each. */
  violations: string[];
  /** Starts checking the answers of a listener. */
  watch(server: Server): void;
}

interface Matcher {
  method: string;
  pattern: RegExp;
  path: string;
  validators: Map<string, ValidateFunction>;
}

let compiled: Matcher[] | undefined;

function matchers(): Matcher[] {
  if (compiled) return compiled;
  const doc = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const out: Matcher[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(ops)) {
      const validators = new Map<string, ValidateFunction>();
      for (const [status, response] of Object.entries(op.responses as Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>)) {
        const schema = response.content?.['application/json']?.schema;
        if (!schema?.$ref) continue;
        validators.set(status, ajv.compile({ $ref: `openapi.json${schema.$ref}` }));
      }
      out.push({ method: method.toUpperCase(), pattern, path, validators });
    }
  }
  // Literal segments before parameters: `/v1/webhooks/events` before `/v1/webhooks/{id}`.
  const params = (m: Matcher) => m.path.split('{').length;
  out.sort((a, b) => params(a) - params(b));
  return (compiled = out);
}

/** Checks one answer; returns what is wrong, or null. */
export function checkResponse(method: string, url: string, status: number, body: unknown): string | null {
  const path = url.split('?')[0]!;
  const m = matchers().find((x) => x.method === method && x.pattern.test(path));
  if (!m) return null;
  const validate = m.validators.get(String(status)) ?? m.validators.get('default');
  if (!validate) return `${method} ${path} -> ${status}: the document has no answer for this status`;
  if (validate(body)) return null;
  const first = validate.errors?.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
  return `${method} ${path} -> ${status} (${m.path}): ${first}`;
}

export function responseCheck(): ResponseCheck {
  const violations: string[] = [];
  const watch = (server: Server) => {
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      // Express rewrites req.url while routing: keep the one the client sent.
      const url = req.url ?? '';
      if (!url.startsWith('/v1/') || url.startsWith('/v1/openapi.json')) return;
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      const keep = (chunk: unknown) => {
        if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
        else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as typeof res.write;
      res.end = ((chunk?: unknown, ...rest: unknown[]) => (typeof chunk !== 'function' && keep(chunk), end(chunk, ...rest))) as typeof res.end;
      res.once('finish', () => {
        const type = String(res.getHeader('content-type') ?? '');
        if (!chunks.length || !type.includes('json')) return;
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          violations.push(`${req.method} ${url} -> ${res.statusCode}: the body is not JSON`);
          return;
        }
        const problem = checkResponse(req.method ?? 'GET', url, res.statusCode, body);
        if (problem) violations.push(problem);
      });
    });
  };
  return { violations, watch };
}
