import { AppError, httpStatusOf, reasonPhraseOf } from '../lib/errors.js';

/** The spec's standard error body, with the machine-readable `code`, sent on every error response. */
export function errorBody(err: AppError, traceId: string, now: number, status = httpStatusOf(err.kind)) {
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
