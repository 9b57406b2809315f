import type { Response } from 'express';
import type { RequestContext } from '../context.js';

/** The authenticated context the auth middleware attached to this request. */
export function requestContext(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('requestContext() used on a route without authentication');
  return ctx;
}

export function traceIdOf(res: Response): string {
  return res.locals.traceId as string;
}
