import type { ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError } from '../lib/errors.js';
import { errorBody } from './error-body.js';
import { traceIdOf } from './request-context.js';

/** body-parser's error types, turned into the standard 4xx answers. */
function fromBodyParser(err: { type?: string; message?: string }, limit: string): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError('malformed_request', 'Malformed JSON in request body', [{ path: ['body'], message: 'is not valid JSON' }]);
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body is larger than the limit of ${limit}`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
    case 'request.aborted':
      return new AppError('malformed_request', err.message ?? 'Unreadable request body');
    default:
      return undefined;
  }
}

export function errorHandler(logger: Logger, bodyLimit: string): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    const known = err instanceof AppError ? err : fromBodyParser(err, bodyLimit);
    const appError = known ?? new AppError('internal', 'Internal server error; quote the trace_id when reporting it');
    if (!known) logger.error({ err, trace_id: traceIdOf(res) }, 'unhandled error');
    const { status, body } = errorBody(appError, traceIdOf(res), Date.now());
    if (res.headersSent) return;
    res.status(status).json(body);
  };
}
