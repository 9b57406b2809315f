import { z } from 'zod';
import { parseIsoDate, type TimePart } from './dates.js';
import { MAX_WIRE_AMOUNT } from './money.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from './text.js';

/** Field shapes shared by several operations. */

/** Text that must be given: storable, trimmed, 1 to `max` characters. */
export const requiredText = (max: number) =>
  z
    .string()
    .refine(isStorableText, UNSTORABLE_TEXT_MESSAGE)
    .trim()
    .pipe(z.string().min(1, 'is required').max(max, `must be at most ${max} characters`));

export const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be a three-letter uppercase currency code (ISO 4217), e.g. EUR');

export const httpUrl = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
    // Checks chained after this one may parse the URL: they do not run on one that failed.
  }, { message: 'must be an absolute http(s) URL', abort: true });

/**
 * An amount in minor units: a JSON number on REST, a MinorUnits string-backed scalar on GraphQL
 * (a bigint by then); a bigint after parsing. At most 2^53-1, the largest whole number a JSON
 * number carries exactly.
 */
export const minorUnits = z
  .custom<number | bigint>((v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)), 'must be a whole amount in minor units')
  .transform((v) => BigInt(v))
  .refine((v) => v >= 0n, 'must not be negative')
  .refine((v) => v <= MAX_WIRE_AMOUNT, `must be at most ${MAX_WIRE_AMOUNT} minor units`)
  // What the OpenAPI document says of it (a custom check has no JSON Schema of its own).
  .meta({ type: 'integer', minimum: 0, maximum: Number(MAX_WIRE_AMOUNT), description: 'Minor units (cents)' });

/** Free-form key-value pairs sellers attach to objects. Bounded so one row cannot grow without limit. */
export const metadata = z
  .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

export const email = z.string().trim().max(254).pipe(z.email('must be a valid e-mail address'));

export const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter uppercase country code (ISO 3166-1)');

/** An issue on an id that cannot name any stored object: parseInput answers 404 for it, as for any unknown id. */
export const UNKNOWN_ID = 'unknown_id';

/** An id in a path, query or body: a bounded string; an unknown one answers 404 where it is looked up. */
export const resourceId = z
  .string()
  .refine(isStorableText, { message: UNSTORABLE_TEXT_MESSAGE, params: { [UNKNOWN_ID]: true }, abort: true })
  .trim()
  .pipe(z.string().min(1, 'is required').max(100));

const dateMessage = {
  required: 'must be an ISO 8601 date-time with its offset, in the calendar and in years 1–9999, e.g. 2026-12-31T23:59:59Z',
  optional: 'must be an ISO 8601 date (2026-01-31) or date-time, in the calendar and in years 1–9999',
} as const;

function isoDate(time: TimePart) {
  return z.string().transform((text, ctx) => {
    const date = parseIsoDate(text.trim(), time);
    if (date) return date;
    ctx.addIssue({ code: 'custom', message: dateMessage[time] });
    return z.NEVER;
  });
}

/** A date-time with its offset, as a Date (bodies: `expiry_date`). */
export const isoDateTime = isoDate('required');

/** A day (midnight UTC) or a date-time, as a Date (query filters: `created_after`). */
export const isoDateOrDay = isoDate('optional');
