/**
 * One error taxonomy for the whole service. Services throw AppError with a code; the REST
 * error handler and the GraphQL error formatter map codes to statuses in one place
 * (httpStatusOf / graphqlCodeOf) so the two surfaces cannot disagree.
 */
export type ErrorCode =
  | 'validation_failed'
  | 'bad_request'
  | 'already_exists'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'idempotency_mismatch'
  | 'payload_too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

export interface FieldIssue {
  /** Path of the offending input field, as the caller named it (e.g. ['custom_fields', 0, 'key']). */
  path: (string | number)[];
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];

  constructor(code: ErrorCode, message: string, issues: FieldIssue[] = []) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.issues = issues;
  }

  /** One message per problem, each naming its field, as the standard error body wants. */
  messages(formatPath: (path: (string | number)[]) => string = dottedPath): string[] {
    if (this.issues.length === 0) return [this.message];
    return this.issues.map((i) => (i.path.length ? `${formatPath(i.path)}: ${i.message}` : i.message));
  }
}

export function dottedPath(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export const notFound = (what: string, id?: string) =>
  new AppError('not_found', id ? `${what} ${id} not found` : `${what} not found`);

export const invalidField = (path: (string | number)[], message: string) =>
  new AppError('validation_failed', 'Validation failed', [{ path, message }]);

export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'validation_failed':
    case 'bad_request':
    case 'already_exists':
    case 'idempotency_mismatch':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'payload_too_large':
      return 413;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
  }
}

/** The `extensions.code` of a GraphQL error for the same failure. */
export function graphqlCodeOf(code: ErrorCode): string {
  switch (code) {
    case 'validation_failed':
    case 'bad_request':
    case 'already_exists':
    case 'idempotency_mismatch':
      return 'BAD_USER_INPUT';
    case 'unauthenticated':
      return 'UNAUTHENTICATED';
    case 'forbidden':
      return 'FORBIDDEN';
    case 'not_found':
      return 'NOT_FOUND';
    case 'conflict':
      return 'CONFLICT';
    case 'payload_too_large':
      return 'PAYLOAD_TOO_LARGE';
    case 'rate_limited':
      return 'RATE_LIMITED';
    case 'unavailable':
      return 'SERVICE_UNAVAILABLE';
    case 'internal':
      return 'INTERNAL_SERVER_ERROR';
  }
}

/** The `error` string of the standard body: the reason phrase of the status. */
export function reasonPhraseOf(status: number): string {
  switch (status) {
    case 400:
      return 'Bad Request';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'Not Found';
    case 409:
      return 'Conflict';
    case 413:
      return 'Payload Too Large';
    case 429:
      return 'Too Many Requests';
    case 503:
      return 'Service Unavailable';
    default:
      return 'Internal Server Error';
  }
}
