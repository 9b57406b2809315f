import type { Discount } from '../../generated/prisma/client.js';

export type DiscountWithProducts = Discount & { products: { productId: string }[] };

/**
 * Status is derived at read time: expiry is a point in time, so storing `expired` would need a
 * sweeper and would be wrong between sweeps.
 */
export function discountStatus(d: Pick<Discount, 'status' | 'expiryDate'>, now: Date): 'active' | 'expired' | 'deleted' {
  if (d.status === 'deleted') return 'deleted';
  if (d.expiryDate && d.expiryDate.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/**
 * The small object embedded in checkouts and subscriptions. Unlike the rest of /v1 its keys are
 * camelCase: that is what the creem client's CheckoutEntityDiscount / subscription Discount
 * inbound schemas read (they do not remap). Optional fields are omitted, never null, because
 * those schemas reject null.
 */
export function serializeAppliedDiscount(d: Discount) {
  return {
    id: d.id,
    discountCode: d.code,
    name: d.name,
    type: d.type as 'percentage' | 'fixed',
    // Percentage: whole percent; fixed: minor units of the discount's currency.
    amount: d.amount,
    duration: d.duration as 'forever' | 'once' | 'repeating',
    ...(d.durationInMonths != null ? { durationInMonths: d.durationInMonths } : {}),
  };
}

/** The /v1 DiscountEntity. Optional fields are omitted rather than null (the client rejects null). */
export function serializeDiscount(d: DiscountWithProducts, now: Date) {
  return {
    id: d.id,
    mode: d.mode,
    object: 'discount',
    status: discountStatus(d, now),
    name: d.name,
    code: d.code,
    type: d.type,
    amount: d.amount,
    ...(d.type === 'percentage' ? { percentage: d.amount } : {}),
    ...(d.currency ? { currency: d.currency } : {}),
    ...(d.expiryDate ? { expiry_date: d.expiryDate.toISOString() } : {}),
    ...(d.maxRedemptions != null ? { max_redemptions: d.maxRedemptions } : {}),
    duration: d.duration,
    ...(d.durationInMonths != null ? { duration_in_months: d.durationInMonths } : {}),
    applies_to_products: d.products.map((p) => p.productId),
    redeem_count: d.timesRedeemed,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
