import { z } from 'zod';
import type { Discount } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { isoTimestamp, modeField } from '../../lib/response-schemas.js';
import { discountStatus } from './discounts.rules.js';
import { DISCOUNT_DURATIONS, DISCOUNT_STATUSES, DISCOUNT_TYPES } from './discounts.schemas.js';
import type { DiscountWithProducts } from './discounts.service.js';

/**
 * The one number /v1 shows as a discount's `amount`: minor units of its currency for a fixed
 * discount, the whole percent for a percentage discount.
 */
function wireAmount(d: Pick<Discount, 'type' | 'amount' | 'percentage'>): number {
  return d.type === 'percentage' ? (d.percentage ?? 0) : toWireNumber(d.amount ?? 0n);
}

const discountAmount = z.number().int().meta({ description: 'Percentage discount: whole percent; fixed: minor units of the discount currency' });

/** The discount embedded in checkouts and subscriptions: camelCase keys, optional fields omitted (see `serializeAppliedDiscount`). */
export const appliedDiscountEntity = z
  .object({
    id: z.string(),
    discountCode: z.string(),
    name: z.string(),
    type: z.enum(DISCOUNT_TYPES),
    amount: discountAmount,
    duration: z.enum(DISCOUNT_DURATIONS),
    durationInMonths: z.number().int().optional(),
  })
  .meta({ id: 'AppliedDiscountEntity' });
export type AppliedDiscountEntity = z.infer<typeof appliedDiscountEntity>;

/** The /v1 DiscountEntity; optional fields are omitted, never null. */
export const discountEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('discount'),
    status: z.enum(DISCOUNT_STATUSES),
    name: z.string(),
    code: z.string(),
    type: z.enum(DISCOUNT_TYPES),
    amount: discountAmount,
    percentage: z.number().int().optional(),
    currency: z.string().optional(),
    expiry_date: isoTimestamp.optional(),
    max_redemptions: z.number().int().optional(),
    duration: z.enum(DISCOUNT_DURATIONS),
    duration_in_months: z.number().int().optional(),
    applies_to_products: z.array(z.string()),
    redeem_count: z.number().int(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'DiscountEntity' });
export type DiscountEntity = z.infer<typeof discountEntity>;

/**
 * The small object embedded in checkouts and subscriptions. Unlike the rest of /v1 its keys are
 * camelCase: that is what the creem client's CheckoutEntityDiscount / subscription Discount
 * inbound schemas read (they do not remap). Optional fields are omitted, never null, because
 * those schemas reject null.
 */
export function serializeAppliedDiscount(d: Discount): AppliedDiscountEntity {
  return {
    id: d.id,
    discountCode: d.code,
    name: d.name,
    type: d.type as 'percentage' | 'fixed',
    // Percentage: whole percent; fixed: minor units of the discount's currency.
    amount: wireAmount(d),
    duration: d.duration as 'forever' | 'once' | 'repeating',
    ...(d.durationInMonths != null ? { durationInMonths: d.durationInMonths } : {}),
  };
}

/** The /v1 DiscountEntity. Optional fields are omitted rather than null (the client rejects null). */
export function serializeDiscount(d: DiscountWithProducts, now: Date): DiscountEntity {
  return {
    id: d.id,
    mode: d.mode,
    object: 'discount',
    status: discountStatus(d, now),
    name: d.name,
    code: d.code,
    type: d.type as DiscountEntity['type'],
    amount: wireAmount(d),
    ...(d.type === 'percentage' ? { percentage: d.percentage ?? 0 } : {}),
    ...(d.currency ? { currency: d.currency } : {}),
    ...(d.expiryDate ? { expiry_date: d.expiryDate.toISOString() } : {}),
    ...(d.maxRedemptions != null ? { max_redemptions: d.maxRedemptions } : {}),
    duration: d.duration as DiscountEntity['duration'],
    ...(d.durationInMonths != null ? { duration_in_months: d.durationInMonths } : {}),
    applies_to_products: d.products.map((p) => p.productId),
    redeem_count: d.timesRedeemed,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
