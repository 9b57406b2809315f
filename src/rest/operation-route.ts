import type { Request, RequestHandler, Router } from 'express';
import { execute, type Operation } from '../core/operation.js';
import { AppError } from '../lib/errors.js';
import { requestContext } from './request-context.js';

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * A /v1 route: the request's input (query string for GET, JSON body otherwise, by default)
 * goes through the operation, whose /v1 JSON is the answer.
 */
export function route<In, Out>(router: Router, method: Method, path: string, op: Operation<In, Out>, input: (req: Request) => unknown = defaultInput(method), status = 200) {
  const handler: RequestHandler = async (req, res) => {
    const out = await execute(requestContext(res), op, input(req));
    if (out.replayed) res.set('Idempotent-Replayed', 'true');
    if (op.secretFields?.length) res.set('cache-control', 'no-store');
    res.status(status).json(out.body);
  };
  OPERATION_OF_HANDLER.set(handler, op as Operation<unknown, unknown>);
  router[method](path, handler);
}

/** The operation each route runs, for tests generated from the router (isolation, fuzzing). */
const OPERATION_OF_HANDLER = new WeakMap<RequestHandler, Operation<unknown, unknown>>();

export function operationOfHandler(handler: unknown): Operation<unknown, unknown> | undefined {
  return OPERATION_OF_HANDLER.get(handler as RequestHandler);
}

const defaultInput = (method: Method) => (req: Request) => (method === 'get' ? req.query : bodyOf(req));

/** The JSON body as an object (absent = empty); anything else is refused naming `body`. */
export function bodyOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new AppError('validation_failed', 'Validation failed', [{ path: ['body'], message: 'must be a JSON object' }]);
  return body as Record<string, unknown>;
}

/** Body (or query) with the path parameters applied last, so the body cannot redirect the call to another resource. */
export const withParams = (source: 'body' | 'query') => (req: Request) => ({ ...(source === 'body' ? bodyOf(req) : req.query), ...req.params });
