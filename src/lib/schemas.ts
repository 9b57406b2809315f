import { z } from 'zod';

/** Field shapes shared by several operations. */

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
  }, 'must be an absolute http(s) URL');

/** Amounts in minor units. The ceiling keeps price × units and sums inside 32-bit columns. */
export const MAX_AMOUNT = 99_999_999;
export const minorUnits = z.number().int('must be an integer amount in minor units').min(0).max(MAX_AMOUNT);

/** Free-form key-value pairs sellers attach to objects. Bounded so one row cannot grow without limit. */
export const metadata = z
  .record(z.string().max(40), z.union([z.string().max(500), z.number(), z.boolean(), z.null()]))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 keys');

export const email = z.string().trim().max(254).pipe(z.email('must be a valid e-mail address'));

export const countryCode = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter uppercase country code (ISO 3166-1)');
