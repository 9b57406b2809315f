import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { currencyCode, isoDateOrDay, isoDateTime, minorUnits, resourceId } from '../../lib/schemas.js';

/**
 * Input schemas of the discount operations, in the /v1 field names. GraphQL converts its
 * camelCase arguments with `toApiInput` and goes through the same schemas.
 */

export const DISCOUNT_TYPES = ['percentage', 'fixed'] as const;
export const DISCOUNT_DURATIONS = ['forever', 'once', 'repeating'] as const;
export const DISCOUNT_STATUSES = ['active', 'expired', 'deleted'] as const;

export type DiscountStatus = (typeof DISCOUNT_STATUSES)[number];

/** Codes are typed by buyers: letters, digits, - and _ only, compared case-insensitively. */
export const discountCode = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{3,32}$/, 'must be 3 to 32 letters, digits, - or _');


export const createDiscountSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    code: discountCode.optional(),
    type: z.enum(DISCOUNT_TYPES),
    amount: minorUnits.refine((v) => v >= 1n, 'must be at least 1 (minor units)').optional(),
    currency: currencyCode.optional(),
    percentage: z.number().int('must be a whole percent').min(1).max(100).optional(),
    expiry_date: isoDateTime.optional(),
    max_redemptions: z.number().int().min(1).max(1_000_000_000).optional(),
    duration: z.enum(DISCOUNT_DURATIONS),
    duration_in_months: z.number().int().min(1).max(120).optional(),
    applies_to_products: z.array(resourceId).max(100, 'at most 100 products').default([]),
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

/** GET /v1/discounts: by id or by code (one of them); other query parameters are ignored. */
export const retrieveDiscountSchema = z
  .object({ discount_id: resourceId.optional(), discount_code: z.string().trim().min(1).max(100).optional() })
  .refine((q) => q.discount_id || q.discount_code, { message: 'send discount_id or discount_code', path: ['discount_id'] });
export type RetrieveDiscountInput = z.output<typeof retrieveDiscountSchema>;

/** The filters of the discount list, shared by REST search and the GraphQL connection. */
export const discountFilterSchema = z.object({
  product_id: resourceId.optional(),
  status: z.enum(DISCOUNT_STATUSES).optional(),
  type: z.enum(DISCOUNT_TYPES).optional(),
  created_after: isoDateOrDay.optional(),
  created_before: isoDateOrDay.optional(),
});
export type DiscountFilter = z.output<typeof discountFilterSchema>;

export const searchDiscountsSchema = pageQuery(50).extend(discountFilterSchema.shape);
export type SearchDiscountsInput = z.output<typeof searchDiscountsSchema>;

/** DELETE /v1/discounts/{id}/delete: the id; other query parameters are ignored. */
export const discountIdSchema = z.object({ id: resourceId });
export type DiscountIdInput = z.output<typeof discountIdSchema>;
