import type { NextFunction, RequestHandler, Response } from 'express';
import { Prisma, type IdempotencyRecord, type PrismaClient } from '../generated/prisma/client.js';
import type { RequestContext } from '../context.js';
import { AppError } from '../lib/errors.js';
import { sha256Hex } from '../lib/secrets.js';
import { requestContext } from './request-context.js';

const MAX_KEY_LENGTH = 255;
/** How long a key is remembered, as at Stripe: a retry after a day is a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

type RecordId = { storeId: string; mode: RequestContext['mode']; key: string };

/** Drops remembered answers older than the window; run periodically by the service. */
export function purgeExpiredIdempotencyRecords(db: PrismaClient, now: Date) {
  return db.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS) } } });
}

/**
 * Stripe-style idempotent POSTs. The first request with an `Idempotency-Key` reserves the
 * key; its answer (2xx or 4xx) is stored and replayed to every retry with the same key, so
 * a retried create never creates twice. A retry while the first is still running gets 409;
 * the same key with a different request gets 400. Server errors release the key so the
 * client can try again. Keys are remembered for IDEMPOTENCY_WINDOW_MS.
 */
export function idempotentPost(): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || !key) return next();
    if (key.length > MAX_KEY_LENGTH) {
      throw new AppError('validation_failed', 'Validation failed', [{ path: ['Idempotency-Key'], message: `must be at most ${MAX_KEY_LENGTH} characters` }]);
    }
    const ctx = requestContext(res);
    const id: RecordId = { storeId: ctx.storeId, mode: ctx.mode, key };
    const requestHash = sha256Hex(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`);
    const first = await reserveOrFindFirst(ctx, id, requestHash);
    if (first) {
      res.set('Idempotent-Replayed', 'true').status(first.responseStatus!).type('application/json').send(first.responseBody);
      return;
    }
    recordAnswer(res, ctx, id, next);
    next();
  };
}

/** null = the key is ours now; otherwise the finished first request to replay. */
async function reserveOrFindFirst(ctx: RequestContext, id: RecordId, requestHash: string): Promise<IdempotencyRecord | null> {
  const now = ctx.clock.now();
  // Two rounds: the second follows a record that expired or was released meanwhile.
  for (let round = 0; round < 2; round++) {
    try {
      await ctx.db.idempotencyRecord.create({ data: { ...id, requestHash, createdAt: now } });
      return null;
    } catch (err) {
      if (!(err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')) throw err;
    }
    const first = await ctx.db.idempotencyRecord.findUnique({ where: { storeId_mode_key: id } });
    if (!first) continue;
    if (first.createdAt.getTime() < now.getTime() - IDEMPOTENCY_WINDOW_MS) {
      // Only that stale record: a concurrent retry may already have replaced it.
      await ctx.db.idempotencyRecord.deleteMany({ where: { ...id, createdAt: first.createdAt } });
      continue;
    }
    if (first.requestHash !== requestHash) {
      throw new AppError('idempotency_mismatch', 'This Idempotency-Key was already used with a different request', [
        { path: ['Idempotency-Key'], message: 'was already used with a different request' },
      ]);
    }
    if (first.responseStatus === null) throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed');
    return first;
  }
  throw new AppError('conflict', 'Another request with this Idempotency-Key is in flight; retry');
}

/**
 * Fields of this answer that must never be written to the idempotency store (a signing
 * secret shown once): a replay answers without them, and the caller reads them through
 * their own operation (GET /v1/webhooks/{id}/secret).
 */
export function keepOutOfIdempotencyStore(res: Response, fields: string[]): Response {
  res.locals.idempotencyOmit = fields;
  return res;
}

function storable(res: Response, body: unknown): string {
  const omit = res.locals.idempotencyOmit as string[] | undefined;
  if (!omit || body === null || typeof body !== 'object') return JSON.stringify(body);
  return JSON.stringify(Object.fromEntries(Object.entries(body).filter(([k]) => !omit.includes(k))));
}

/** Stores the answer before it goes out, so a retry arriving right after it sees it. */
function recordAnswer(res: Response, ctx: RequestContext, id: RecordId, next: NextFunction) {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    // Once only: if recording fails, the error handler answers through the plain json().
    res.json = json;
    const status = res.statusCode;
    const stored =
      status >= 500 || status === 409
        ? ctx.db.idempotencyRecord.delete({ where: { storeId_mode_key: id } })
        : ctx.db.idempotencyRecord.update({ where: { storeId_mode_key: id }, data: { responseStatus: status, responseBody: storable(res, body) } });
    stored.then(
      () => json(body),
      (err: unknown) => next(err),
    );
    return res;
  };
}
