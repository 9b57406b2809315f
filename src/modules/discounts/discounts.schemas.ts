import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { currencyCode, MAX_AMOUNT } from '../../lib/schemas.js';

/**
 * Input schemas of the discount operations, in the /v1 field names. GraphQL converts its
 * camelCase arguments with `toApiInput` and goes through the same schemas.
 */

export const DISCOUNT_TYPES = ['percentage', 'fixed'] as const;
export const DISCOUNT_DURATIONS = ['forever', 'once', 'repeating'] as const;
export const DISCOUNT_STATUSES = ['active', 'expired', 'deleted'] as const;

/** Codes are typed by buyers: letters, digits, - and _ only, compared case-insensitively. */
export const discountCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{3,32}$/, 'must be 3 to 32 letters, digits, - or _');

const isoDateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, e.g. 2026-12-31T23:59:59Z' });

export const createDiscountSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    code: discountCode.optional(),
    type: z.enum(DISCOUNT_TYPES),
    amount: z.number().int('must be an integer amount in minor units').min(1).max(MAX_AMOUNT).optional(),
    currency: currencyCode.optional(),
    percentage: z.number().int('must be a whole percent').min(1).max(100).optional(),
    expiry_date: isoDateTime.optional(),
    max_redemptions: z.number().int().min(1).max(1_000_000_000).optional(),
    duration: z.enum(DISCOUNT_DURATIONS),
    duration_in_months: z.number().int().min(1).max(120).optional(),
    applies_to_products: z.array(z.string().min(1)).max(100, 'at most 100 products').default([]),
  })
  .superRefine((v, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (v.type === 'percentage') {
      if (v.percentage === undefined) issue('percentage', 'is required for a percentage discount');
      if (v.amount !== undefined) issue('amount', 'applies to fixed discounts only; send percentage');
      if (v.currency !== undefined) issue('currency', 'applies to fixed discounts only');
    } else {
      if (v.amount === undefined) issue('amount', 'is required for a fixed discount (minor units)');
      if (v.currency === undefined) issue('currency', 'is required for a fixed discount');
      if (v.percentage !== undefined) issue('percentage', 'applies to percentage discounts only; send amount');
    }
    if (v.duration === 'repeating' && v.duration_in_months === undefined) {
      issue('duration_in_months', 'is required when duration is repeating');
    }
    if (v.duration !== 'repeating' && v.duration_in_months !== undefined) {
      issue('duration_in_months', 'applies only when duration is repeating');
    }
  });
export type CreateDiscountInput = z.output<typeof createDiscountSchema>;

export const retrieveDiscountSchema = z
  .object({ discount_id: z.string().min(1).optional(), discount_code: z.string().trim().min(1).optional() })
  .refine((q) => q.discount_id || q.discount_code, { message: 'send discount_id or discount_code', path: ['discount_id'] });

/** A day (`2026-01-31`) or a date-time; query strings carry either. */
const queryDate = z
  .string()
  .refine((v) => /^\d{4}-\d{2}-\d{2}([T ].*)?$/.test(v) && !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 date or date-time')
  .transform((v) => new Date(v));

export const searchDiscountsSchema = pageQuery(50).extend({
  product_id: z.string().min(1).optional(),
  status: z.enum(DISCOUNT_STATUSES).optional(),
  type: z.enum(DISCOUNT_TYPES).optional(),
  created_after: queryDate.optional(),
  created_before: queryDate.optional(),
});

export const deleteDiscountSchema = z.object({ id: z.string().min(1) });
