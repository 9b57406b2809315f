import type { z } from 'zod';
import type { RequestContext } from '../context.js';
import { inTransaction } from '../db/tenant.js';
import { AppError, type ErrorCode } from '../lib/errors.js';
import { parseInput } from '../lib/validation.js';
import { executeIdempotently } from './idempotency.js';

/**
 * One operation of the API, as both surfaces run it: the REST route and the GraphQL field are
 * a few lines around the same definition, so they validate the same input, run the same
 * service and fail with the same error codes.
 */
export interface Operation<In, Out, Body = unknown> {
  /** `products.create`: names the operation in idempotency records. */
  readonly name: string;
  /** One short line for the reference (the OpenAPI `summary`): "Create a product", "List a customer's orders". */
  readonly summary: string;
  /**
   * What a caller must know beyond the summary, in one or two sentences (the OpenAPI
   * `description`): the status on success if not 200, idempotency, paging, what is refused, units.
   */
  readonly description?: string;
  /** The input schema, in the /v1 field names; GraphQL converts its arguments to them. */
  readonly input: z.ZodType<In>;
  /**
   * A write runs in one database transaction, and with an Idempotency-Key its first answer is
   * recorded in that same transaction. `'steps'`: a write whose service opens its own
   * transactions, because something outside the database happens between them (a change
   * charged now, the due work a moved test clock runs), or whose one write is a single atomic
   * statement (a ledger posting); with an Idempotency-Key the key is claimed before it runs and
   * its answer recorded once it has.
   */
  readonly write: boolean | 'steps';
  /** What must happen outside the transaction before the write (a DNS check of a URL). */
  readonly prepare?: (ctx: RequestContext, input: In) => Promise<void>;
  readonly run: (ctx: RequestContext, input: In) => Promise<Out>;
  /**
   * The schema of the /v1 JSON answer: the serializer's response schema (the OpenAPI document
   * is generated from it and from `input`; the tests check every answer against the document).
   */
  readonly output: z.ZodType<Body>;
  /** The /v1 JSON of the result (webhook payloads use the same serializers). */
  readonly render: (ctx: RequestContext, result: Out) => Body;
  /** The id of the object the result is about, which a GraphQL payload reads back; default `result.id`. */
  readonly idOf?: (result: Out) => string | null;
  /** Fields of the answer that are shown once and never stored for replays (a signing secret). */
  readonly secretFields?: readonly string[];
  /** The code invalid input answers with, where the client documents another status than 400 (422 for usage events). */
  readonly invalidInputCode?: ErrorCode;
}

/** The operation's input, validated by its schema; invalid input answers with the operation's code. */
export function parseOperationInput<In, Out>(op: Operation<In, Out>, raw: unknown): In {
  try {
    return parseInput(op.input, raw);
  } catch (err) {
    if (op.invalidInputCode && err instanceof AppError && err.code === 'validation_failed') throw new AppError(op.invalidInputCode, err.message, err.issues);
    throw err;
  }
}

/** `render` of an operation whose service already answers in the /v1 shape (previews, ingest reports). */
export const renderAsIs = <T>(_ctx: unknown, value: T) => value;

export function defineOperation<In, Out, Body>(op: Operation<In, Out, Body>): Operation<In, Out, Body> {
  return op;
}

export interface Executed<Out> {
  /** The /v1 JSON answer: the first one's, on a replay. */
  body: unknown;
  id: string | null;
  /** The service's result; absent on a replay. */
  result?: Out;
  replayed: boolean;
}

export function resultIdOf<In, Out>(op: Operation<In, Out>, result: Out): string | null {
  if (op.idOf) return op.idOf(result);
  const id = (result as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}

/** Validates, runs and renders an operation; writes run in one transaction and honour Idempotency-Key. */
export async function execute<In, Out>(ctx: RequestContext, op: Operation<In, Out>, raw: unknown): Promise<Executed<Out>> {
  if (op.write && ctx.idempotencyKey) return executeIdempotently(ctx, op, raw, ctx.idempotencyKey);
  const input = parseOperationInput(op, raw);
  await op.prepare?.(ctx, input);
  const result = op.write === true ? await inTransaction(ctx, (tx) => op.run(tx, input)) : await op.run(ctx, input);
  return { body: op.render(ctx, result), id: resultIdOf(op, result), result, replayed: false };
}
