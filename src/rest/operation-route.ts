import type { Request, RequestHandler, Router } from 'express';
import { execute, type Operation } from '../core/operation.js';
import { AppError } from '../lib/errors.js';
import { requestContext } from './request-context.js';

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * A /v1 route: the request's input (query string for GET, JSON body otherwise, by default)
 * goes through the operation, whose /v1 JSON is the answer.
 */
export function route<In, Out, Body>(router: Router, method: Method, path: string, op: Operation<In, Out, Body>, input: InputOf = defaultInput(method), status = 200) {
  const handler: RequestHandler = async (req, res) => {
    const out = await execute(requestContext(res), op, input(req));
    if (out.replayed) res.set('Idempotent-Replayed', 'true');
    if (op.secretFields?.length) res.set('cache-control', 'no-store');
    res.status(status).json(out.body);
  };
  ROUTE_OF_HANDLER.set(handler, { method, path, op: op as Operation<unknown, unknown>, source: input.source, status });
  router[method](path, handler);
}

/** What a /v1 route does, as the OpenAPI document (src/rest/openapi.ts) and the tests generated from the router read it. */
export interface OperationRoute {
  method: Method;
  /** Express syntax, relative to /v1: `/products/:id`. */
  path: string;
  op: Operation<unknown, unknown>;
  /** Where the input comes from besides the path parameters. */
  source: 'query' | 'body';
  /** The status of a successful answer. */
  status: number;
}

/** A route's input reader, naming where it reads (the path parameters always apply last). */
type InputOf = ((req: Request) => unknown) & { source: 'query' | 'body' };

const ROUTE_OF_HANDLER = new WeakMap<RequestHandler, OperationRoute>();

export function routeOfHandler(handler: unknown): OperationRoute | undefined {
  return ROUTE_OF_HANDLER.get(handler as RequestHandler);
}

/** The operation a route's handler runs, for tests generated from the router (isolation, fuzzing). */
export function operationOfHandler(handler: unknown): Operation<unknown, unknown> | undefined {
  return routeOfHandler(handler)?.op;
}

const reading = (source: 'query' | 'body', read: (req: Request) => unknown): InputOf => Object.assign(read, { source });

const defaultInput = (method: Method): InputOf => (method === 'get' ? reading('query', (req) => req.query) : reading('body', bodyOf));

/** The JSON body as an object (absent = empty); anything else is refused naming `body`. */
export function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('validation_failed', 'Validation failed', [{ path: ['body'], message: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

/** Body (or query) with the path parameters applied last, so the body cannot redirect the call to another resource. */
export const withParams = (source: 'body' | 'query'): InputOf => reading(source, (req) => ({ ...(source === 'body' ? bodyOf(req) : req.query), ...req.params }));
