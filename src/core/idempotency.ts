import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { RequestContext } from '../context.js';
import { db, inTransaction } from '../db/tenant.js';
import { AppError, httpStatusOf, type ErrorCode, type FieldIssue } from '../lib/errors.js';
import { sha256Hex } from '../lib/secrets.js';
import { parseOperationInput, resultIdOf, type Executed, type Operation } from './operation.js';

/** How long a key is remembered, as at Stripe: a retry after a day is a new request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

type Outcome =
  | { ok: true; body: unknown; id: string | null }
  | { ok: false; error: { code: ErrorCode; message: string; issues: FieldIssue[] } };

/** The input as a canonical string: keys sorted, so the same request always hashes the same on both surfaces. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
    }
    return v;
  }) ?? 'null';
}

function withoutSecrets(body: unknown, fields: readonly string[] | undefined): unknown {
  if (!fields?.length || body === null || typeof body !== 'object') return body;
  return Object.fromEntries(Object.entries(body).filter(([k]) => !fields.includes(k)));
}

const windowStart = (ctx: RequestContext) => new Date(ctx.clock.now().getTime() - IDEMPOTENCY_WINDOW_MS);

async function firstAnswer(ctx: RequestContext, key: string) {
  return db(ctx).idempotencyRecord.findFirst({ where: { key, createdAt: { gte: windowStart(ctx) } } });
}

const inUse = () => new AppError('idempotency_key_in_use', 'Another request with this Idempotency-Key is in flight; retry');

/** The first answer again, or a refusal when the key was used for a different request. */
function replay<Out>(record: { requestHash: string; status: number; outcome: Prisma.JsonValue }, requestHash: string): Executed<Out> {
  if (record.requestHash !== requestHash) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request', [
      { path: ['Idempotency-Key'], message: 'was already used with a different request; use a new key for a new request' },
    ]);
  }
  // Claimed and committed but not answered yet: a request in steps is still running.
  if (record.status === 0) throw inUse();
  const outcome = record.outcome as unknown as Outcome;
  if (!outcome.ok) throw AppError.fromJSON(outcome.error);
  return { body: outcome.body, id: outcome.id, replayed: true };
}

/** Takes the key inside the caller's transaction; false when another request holds or held it. */
async function claim(ctx: RequestContext, key: string, operation: string, requestHash: string): Promise<boolean> {
  // A record that outlived the window no longer counts; it makes way for this request.
  await db(ctx).idempotencyRecord.deleteMany({ where: { key, createdAt: { lt: windowStart(ctx) } } });
  // ON CONFLICT DO NOTHING: while another transaction holds the key, this waits for it to end.
  const { count } = await db(ctx).idempotencyRecord.createMany({
    data: [{ key, requestHash, operation, status: 0, outcome: {}, createdAt: ctx.clock.now() }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** Takes the key (null), or answers as the request holding it did; still running: in use. */
async function claimOrReplay<Out>(tx: RequestContext, key: string, operation: string, requestHash: string): Promise<Executed<Out> | null> {
  if (await claim(tx, key, operation, requestHash)) return null;
  const other = await firstAnswer(tx, key);
  if (!other) throw inUse();
  return replay<Out>(other, requestHash);
}

async function remember(ctx: RequestContext, key: string, status: number, outcome: Outcome): Promise<void> {
  await db(ctx).idempotencyRecord.updateMany({ where: { key }, data: { status, outcome: outcome as unknown as Prisma.InputJsonObject } });
}

/** A refused request is an answer too; it is remembered in a transaction of its own, since the write rolled back. */
async function rememberRefusal(ctx: RequestContext, key: string, operation: string, requestHash: string, err: AppError): Promise<void> {
  const outcome: Outcome = { ok: false, error: err.toJSON() };
  await db(ctx).idempotencyRecord.createMany({
    data: [{ key, requestHash, operation, status: httpStatusOf(err.kind), outcome: outcome as unknown as Prisma.InputJsonObject, createdAt: ctx.clock.now() }],
    skipDuplicates: true,
  });
}

const isTransactionTimeout = (err: unknown) => err instanceof Prisma.PrismaClientKnownRequestError && (err.code === 'P2028' || err.code === 'P2034');

/**
 * Stripe-style idempotent writes, kept in the core so REST and GraphQL share them. The first
 * request with a key claims it in the transaction of its write and records its answer there,
 * so the write and its answer commit together or not at all: a crash leaves the key free. A
 * retry gets the first answer (success or refusal); the same key with another request is
 * refused; a retry while the first is still running waits for it. Server errors are not
 * remembered: the write rolled back, and the retry runs again.
 */
export async function executeIdempotently<In, Out>(ctx: RequestContext, op: Operation<In, Out>, raw: unknown, key: string): Promise<Executed<Out>> {
  const requestHash = sha256Hex(`${op.name}\n${canonical(raw)}`);
  const first = await firstAnswer(ctx, key);
  if (first) return replay(first, requestHash);
  try {
    const input = parseOperationInput(op, raw);
    await op.prepare?.(ctx, input);
    if (op.write === 'steps') return await executeSteps(ctx, op, input, key, requestHash);
    return await inTransaction(ctx, async (tx): Promise<Executed<Out>> => {
      const replayed = await claimOrReplay<Out>(tx, key, op.name, requestHash);
      if (replayed) return replayed;
      const result = await op.run(tx, input);
      const body = op.render(tx, result);
      const id = resultIdOf(op, result);
      await remember(tx, key, 200, { ok: true, body: withoutSecrets(body, op.secretFields), id });
      return { body, id, result, replayed: false };
    });
  } catch (err) {
    if (isTransactionTimeout(err)) throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry');
    if (err instanceof AppError && err.isCallerError && err.code !== 'idempotency_key_reused' && err.code !== 'idempotency_key_in_use') {
      await rememberRefusal(ctx, key, op.name, requestHash, err);
    }
    throw err;
  }
}

/**
 * An operation in steps cannot record its answer in the transaction of its write: the key is
 * claimed in a transaction of its own first (a retry meanwhile is told the key is in use), and
 * the answer is recorded when the steps are done. A refusal is an answer; a server error frees
 * the key, so that a retry runs again, as with a write that rolled back.
 */
async function executeSteps<In, Out>(ctx: RequestContext, op: Operation<In, Out>, input: In, key: string, requestHash: string): Promise<Executed<Out>> {
  const replayed = await inTransaction(ctx, (tx) => claimOrReplay<Out>(tx, key, op.name, requestHash));
  if (replayed) return replayed;
  let outcome: Outcome;
  let executed: Executed<Out>;
  try {
    const result = await op.run(ctx, input);
    const body = op.render(ctx, result);
    const id = resultIdOf(op, result);
    outcome = { ok: true, body: withoutSecrets(body, op.secretFields), id };
    executed = { body, id, result, replayed: false };
  } catch (err) {
    if (err instanceof AppError && err.isCallerError) {
      await inTransaction(ctx, (tx) => remember(tx, key, httpStatusOf(err.kind), { ok: false, error: err.toJSON() }));
    } else {
      await db(ctx).idempotencyRecord.deleteMany({ where: { key, status: 0 } });
    }
    throw err;
  }
  await inTransaction(ctx, (tx) => remember(tx, key, 200, outcome));
  return executed;
}

/** Drops answers older than the window, for every store; run periodically by the service. */
export async function purgeExpiredIdempotencyRecords(system: PrismaClient, now: Date) {
  await system.idempotencyRecord.deleteMany({ where: { createdAt: { lt: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS) } } });
}
