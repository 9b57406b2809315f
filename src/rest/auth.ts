import type { RequestHandler } from 'express';
import type { Mode } from '../generated/prisma/enums.js';
import type { Clock } from '../lib/clock.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { RequestContext } from '../context.js';
import type { ApiKeyAuthenticator } from '../modules/stores/api-keys.js';
import type { ServiceCaches } from '../caches.js';

export interface ListenerEnv {
  db: PrismaClient;
  mode: Mode;
  clock: Clock;
  baseUrl: string;
  authenticator: ApiKeyAuthenticator;
  caches?: ServiceCaches;
}

/** Builds the request context of a caller; shared by the REST middleware and the GraphQL context factory. */
export async function authenticate(env: ListenerEnv, apiKey: string | undefined, traceId: string, source: RequestContext['source']): Promise<RequestContext> {
  const caller = await env.authenticator.authenticate(apiKey, env.mode);
  return { db: env.db, storeId: caller.storeId, mode: caller.mode, apiKeyId: caller.apiKeyId, clock: env.clock, traceId, source, baseUrl: env.baseUrl, caches: env.caches };
}

export function requireApiKey(env: ListenerEnv): RequestHandler {
  return async (req, res, next) => {
    res.locals.ctx = await authenticate(env, req.get('x-api-key'), res.locals.traceId, 'rest');
    next();
  };
}
