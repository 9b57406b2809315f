import { z } from 'zod';
import { AppError, dottedPath, httpStatusOf, reasonPhraseOf } from '../lib/errors.js';

/** The spec's error body (what `errorBody` writes), for the OpenAPI document. */
export const errorBodySchema = z
  .object({
    trace_id: z.string(),
    status: z.number().int(),
    error: z.string(),
    code: z.string().meta({ description: 'Machine-readable reason (validation_failed, not_found, idempotency_key_reused, …)' }),
    message: z.array(z.string()),
    timestamp: z.number().int(),
  })
  .meta({ id: 'Error' });

/** The structured error body of the customer-credits and usage-metering operations (what `structuredErrorBody` writes). */
export const structuredErrorBodySchema = z
  .object({
    error: z.object({
      type: z.string(),
      code: z.string(),
      message: z.string(),
      param: z.string().nullable(),
      request_id: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .meta({ id: 'StructuredError' });

/** The spec's standard error body, with the machine-readable `code`, sent on every error response. */
export function errorBody(err: AppError, traceId: string, now: number, status = httpStatusOf(err.kind)): { status: number; body: z.infer<typeof errorBodySchema> } {
  return {
    status,
    body: {
      trace_id: traceId,
      status,
      // The spec documents `Bad Request` as the `error` of its 404 body; integrations that
      // match on it keep working.
      error: status === 404 ? 'Bad Request' : reasonPhraseOf(status),
      code: err.code,
      message: err.messages(),
      timestamp: now,
    },
  };
}

const STRUCTURED_TYPE: Partial<Record<AppError['kind'], string>> = {
  unauthenticated: 'authentication_error',
  forbidden: 'authentication_error',
  rate_limited: 'rate_limit_error',
  internal: 'api_error',
  unavailable: 'api_error',
};

/**
 * The structured body the customer-credits and usage-metering operations answer with (the
 * official client's `CustomerCreditsErrorResponseDto` and `UsageMeteringErrorApiResponseDto`):
 * `param` names the first offending field (`entries[3].amount`, `events[3].customer_id`),
 * `details.issues` all of them, next to the error's own details (`archived_holder`).
 */
export function structuredErrorBody(err: AppError, traceId: string, status = httpStatusOf(err.kind)): { status: number; body: z.infer<typeof structuredErrorBodySchema> } {
  const [first] = err.issues;
  return {
    status,
    body: {
      error: {
        type: STRUCTURED_TYPE[err.kind] ?? 'invalid_request_error',
        code: err.code,
        message: err.issues.length ? err.messages().join('; ') : err.message,
        param: first ? paramOf(first.path) : null,
        request_id: traceId,
        ...(err.issues.length || err.details ? { details: { ...err.details, ...(err.issues.length ? { issues: err.issues.map((i) => ({ param: paramOf(i.path), message: i.message })) } : {}) } } : {}),
      },
    },
  };
}

const paramOf = dottedPath;
