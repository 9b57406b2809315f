import type { RequestHandler } from 'express';
import { Prisma } from '../generated/prisma/client.js';
import { AppError } from '../lib/errors.js';
import { sha256Hex } from '../lib/secrets.js';
import { requestContext } from './request-context.js';

const MAX_KEY_LENGTH = 255;

/**
 * Stripe-style idempotent POSTs. The first request with an `Idempotency-Key` reserves the
 * key; its answer (2xx or 4xx) is stored and replayed to every retry with the same key, so
 * a retried create never creates twice. A retry while the first is still running gets 409;
 * the same key with a different request gets 400. Server errors release the key so the
 * client can try again.
 */
export function idempotentPost(): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || !key) return next();
    if (key.length > MAX_KEY_LENGTH) {
      throw new AppError('validation_failed', 'Validation failed', [{ path: ['Idempotency-Key'], message: `must be at most ${MAX_KEY_LENGTH} characters` }]);
    }
    const ctx = requestContext(res);
    const requestHash = sha256Hex(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`);
    const id = { storeId: ctx.storeId, mode: ctx.mode, key };
    try {
      await ctx.db.idempotencyRecord.create({ data: { ...id, requestHash } });
    } catch (err) {
      if (!(err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2002')) throw err;
      const first = await ctx.db.idempotencyRecord.findUnique({ where: { storeId_mode_key: id } });
      if (!first) throw new AppError('conflict', 'A request with this Idempotency-Key was just released; retry');
      if (first.requestHash !== requestHash) {
        throw new AppError('idempotency_mismatch', 'This Idempotency-Key was already used with a different request', [
          { path: ['Idempotency-Key'], message: 'was already used with a different request' },
        ]);
      }
      if (first.responseStatus === null) throw new AppError('conflict', 'A request with this Idempotency-Key is still being processed');
      res.set('Idempotent-Replayed', 'true').status(first.responseStatus).type('application/json').send(first.responseBody);
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const status = res.statusCode;
      const stored =
        status >= 500 || status === 409
          ? ctx.db.idempotencyRecord.delete({ where: { storeId_mode_key: id } })
          : ctx.db.idempotencyRecord.update({ where: { storeId_mode_key: id }, data: { responseStatus: status, responseBody: JSON.stringify(body) } });
      // The answer goes out once it is recorded, so a retry arriving right after sees it.
      stored.then(
        () => json(body),
        (err: unknown) => next(err),
      );
      return res;
    };
    next();
  };
}
