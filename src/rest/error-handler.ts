import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, type ErrorCode } from '../lib/errors.js';
import { quotaHeaders, RateLimitError } from '../lib/rate-limit.js';
import { errorBody, structuredErrorBody } from './error-body.js';
import { traceIdOf } from './request-context.js';

/** What body-parser's error types mean to a caller. */
const BODY_PARSER_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'Malformed request body',
  'entity.too.large': 'Request body is larger than the limit of {limit}',
  'parameters.too.many': 'Request body has more fields than the limit',
  'encoding.unsupported': 'Unsupported Content-Encoding',
  'charset.unsupported': 'Unsupported charset',
  'request.aborted': 'The request body was not sent completely',
  'request.size.invalid': 'The request body is not as long as its Content-Length says',
};

const CODE_OF_STATUS: Record<number, ErrorCode> = { 404: 'not_found', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/**
 * An error a library raised for the caller's mistake carries its 4xx status (http-errors'
 * `status`: a body that is not gzip though it says so, a malformed percent-encoding in a path,
 * too many form fields); the answer keeps that status, with the standard body.
 */
function fromHttpError(err: unknown, limit: string): { error: AppError; status: number } | undefined {
  const e = err as { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown; expose?: unknown } | null;
  const status = typeof e?.status === 'number' ? e.status : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  if (status === undefined || status < 400 || status > 499) return undefined;
  const known =
    err instanceof URIError
      ? 'Malformed percent-encoding in the URL'
      : typeof (err as { code?: unknown }).code === 'string' && (err as { code: string }).code.startsWith('Z_')
        ? 'Request body is not encoded as its Content-Encoding says'
        : typeof e?.type === 'string'
          ? BODY_PARSER_MESSAGES[e.type]
          : undefined;
  const message = known?.replace('{limit}', limit) ?? (e?.expose === true && typeof e.message === 'string' ? e.message : 'Malformed request');
  const issues = e?.type === 'entity.parse.failed' ? [{ path: ['body'], message: 'is not valid JSON' }] : [];
  return { error: new AppError(CODE_OF_STATUS[status] ?? 'malformed_request', message, issues), status };
}

/** Paths whose operations answer with the client's structured error body (customer credits, usage metering), whatever failed. */
const STRUCTURED_ERRORS = /^\/v1\/(customer-credits|meters|events)(\/|\?|$)/;

/** Whether errors on this /v1 path answer with the structured body. */
export const answersStructuredErrors = (url: string) => STRUCTURED_ERRORS.test(url);

export function errorHandler(logger: Logger, bodyLimit: string): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = err instanceof AppError ? { error: err, status: undefined } : fromHttpError(err, bodyLimit);
    const appError = known?.error ?? new AppError('internal', 'Internal server error; quote the trace_id when reporting it');
    if (!known) logger.error({ err, trace_id: traceIdOf(res) }, 'unhandled error');
    const { status, body } = answersStructuredErrors(req.originalUrl) ? structuredErrorBody(appError, traceIdOf(res), known?.status) : errorBody(appError, traceIdOf(res), Date.now(), known?.status);
    if (res.headersSent) return;
    if (err instanceof RateLimitError) res.set(quotaHeaders(err.quota, true));
    res.status(status).json(body);
  };
}
