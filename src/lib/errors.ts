import { STATUS_CODES } from 'node:http';
/**
 * One error taxonomy for the whole service. A service throws `AppError` with a machine-readable
 * code; every code belongs to one kind, and the kind alone decides the HTTP status. REST shows
 * the code in its error body, GraphQL in `extensions.code` or in a mutation's `userErrors`, so
 * the two surfaces cannot disagree on what went wrong.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'unauthenticated'
  | 'forbidden'
  | 'payment_required'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

/** Every code the service answers with, and its kind. Add a code here before throwing it. */
const CODES = {
  validation_failed: 'invalid_request',
  malformed_request: 'invalid_request',
  already_exists: 'invalid_request',
  invalid_state: 'invalid_request',
  idempotency_key_reused: 'invalid_request',
  query_too_complex: 'invalid_request',
  product_not_purchasable: 'invalid_request',
  discount_invalid: 'invalid_request',
  discount_expired: 'invalid_request',
  discount_exhausted: 'invalid_request',
  discount_not_applicable: 'invalid_request',
  affiliate_unknown: 'invalid_request',
  checkout_expired: 'invalid_request',
  license_disabled: 'invalid_request',
  license_expired: 'invalid_request',
  activation_limit_reached: 'invalid_request',
  instance_already_deactivated: 'invalid_request',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  card_declined: 'payment_required',
  not_found: 'not_found',
  change_in_progress: 'conflict',
  insufficient_balance: 'conflict',
  account_frozen: 'conflict',
  account_closed: 'conflict',
  account_exists: 'conflict',
  balance_not_zero: 'conflict',
  already_reversed: 'conflict',
  unbalanced_transaction: 'unprocessable',
  unprocessable_input: 'unprocessable',
  meter_name_taken: 'conflict',
  meter_definition_locked: 'conflict',
  idempotency_key_in_use: 'conflict',
  checkout_in_progress: 'conflict',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  rate_limited: 'rate_limited',
  processor_unavailable: 'unavailable',
  secret_key_missing: 'unavailable',
  internal: 'internal',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof CODES;

export const ERROR_CODES = Object.keys(CODES) as ErrorCode[];

export interface FieldIssue {
  /** Path of the offending input field, as the caller named it (e.g. ['custom_fields', 0, 'key']). */
  path: (string | number)[];
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly issues: FieldIssue[];
  /** Machine-readable context for the structured error body (`meter_name_taken`: the archived holder). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, issues: FieldIssue[] = [], details?: Record<string, unknown>) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.kind = CODES[code];
    this.issues = issues;
    this.details = details;
  }

  /** One message per problem, each naming its field, as the standard error body wants. */
  messages(formatPath: (path: (string | number)[]) => string = dottedPath): string[] {
    if (this.issues.length === 0) return [this.message];
    return this.issues.map((i) => (i.path.length ? `${formatPath(i.path)}: ${i.message}` : i.message));
  }

  /** The caller's own mistake (4xx): a mutation reports it as a userError, not as an exception. */
  get isCallerError(): boolean {
    const status = httpStatusOf(this.kind);
    return status >= 400 && status < 500 && this.kind !== 'unauthenticated' && this.kind !== 'forbidden';
  }

  toJSON() {
    return { code: this.code, message: this.message, issues: this.issues, ...(this.details ? { details: this.details } : {}) };
  }

  static fromJSON(value: { code: ErrorCode; message: string; issues: FieldIssue[]; details?: Record<string, unknown> }): AppError {
    return new AppError(value.code, value.message, value.issues, value.details);
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(CODES, value);
}

export function dottedPath(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export const notFound = (what: string, id?: string) =>
  new AppError('not_found', id ? `${what} ${id} not found` : `${what} not found`);

/** The row a lookup found, or a 404 naming what was looked for: find-or-404 in one call. */
export async function orNotFound<T>(row: Promise<T | null> | T | null, what: string, id?: string): Promise<T> {
  const value = await row;
  if (value === null || value === undefined) throw notFound(what, id);
  return value;
}

/** A 400 about one field: the message names it. */
export const invalidField = (path: (string | number)[], message: string, code: ErrorCode = 'validation_failed') =>
  new AppError(code, code === 'validation_failed' ? 'Validation failed' : message, [{ path, message }]);

/** Throws once, with every problem found, when there are any. */
export class IssueList {
  readonly issues: FieldIssue[] = [];
  add(field: string | (string | number)[], message: string) {
    this.issues.push({ path: Array.isArray(field) ? field : [field], message });
  }
  throwIfAny() {
    if (this.issues.length) throw new AppError('validation_failed', 'Validation failed', this.issues);
  }
}

export function httpStatusOf(kind: ErrorKind): number {
  switch (kind) {
    case 'invalid_request':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'forbidden':
      return 403;
    case 'payment_required':
      return 402;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'unprocessable':
      return 422;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
  }
}

/** The `error` string of the standard body: the reason phrase of the status. */
export function reasonPhraseOf(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}
