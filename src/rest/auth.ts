import type { RequestHandler } from 'express';
import { contextFor, type RequestContext, type ServiceEnv, type Source } from '../context.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../core/idempotency.js';
import { AppError } from '../lib/errors.js';
import { quotaHeaders, type RateLimits } from '../lib/rate-limit.js';
import type { ApiKeyAuthenticator } from '../modules/stores/api-keys.js';
import { withStoreClock } from '../modules/test-clock/test-clock.service.js';

/** What a listener's transports share: the environment it serves, how it checks keys, the process's rate limits. */
export interface ListenerEnv {
  env: ServiceEnv;
  authenticator: ApiKeyAuthenticator;
  limits: RateLimits;
}

/**
 * The request context of a caller; shared by the REST middleware and the GraphQL context
 * factory. `Idempotency-Key` is taken as given (at most 255 characters); only writes use it.
 */
export async function authenticate(
  listener: ListenerEnv,
  headers: { apiKey: string | undefined; idempotencyKey: string | undefined },
  traceId: string,
  source: Source,
): Promise<RequestContext> {
  const caller = await listener.authenticator.authenticate(headers.apiKey, listener.env.mode);
  const key = headers.idempotencyKey;
  if (key !== undefined && (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH)) {
    throw new AppError('validation_failed', 'Validation failed', [{ path: ['Idempotency-Key'], message: `must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` }]);
  }
  return withStoreClock(contextFor(listener.env, caller.storeId, { traceId, source, apiKeyId: caller.apiKeyId, ...(key !== undefined ? { idempotencyKey: key } : {}) }));
}

/** /v1 authentication and the key's request rate; `Idempotency-Key` counts on POST, as at Stripe. */
export function requireApiKey(listener: ListenerEnv): RequestHandler {
  return async (req, res, next) => {
    const ctx = await authenticate(
      listener,
      { apiKey: req.get('x-api-key'), idempotencyKey: req.method === 'POST' ? req.get('idempotency-key') : undefined },
      res.locals.traceId,
      'rest',
    );
    res.set(quotaHeaders(await listener.limits.api.take(ctx.apiKeyId ?? ctx.storeId)));
    res.locals.ctx = ctx;
    next();
  };
}
