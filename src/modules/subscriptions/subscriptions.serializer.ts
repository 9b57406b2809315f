import { z } from 'zod';
import type { ChangePlan } from './subscription-changes.js';
import { toWireNumber } from '../../lib/money.js';
import { isoTimestamp, metadataField, modeField, pageOf, wireAmount } from '../../lib/response-schemas.js';
import type { SubscriptionItem } from '../../generated/prisma/client.js';
import { customerEntity, serializeCustomer } from '../customers/customers.serializer.js';
import { appliedDiscountEntity, serializeAppliedDiscount } from '../discounts/discounts.serializer.js';
import { productEntity, serializeProduct } from '../products/products.serializer.js';
import { serializeTransaction, transactionEntity } from '../transactions/transactions.serializer.js';
import { lastPayment } from './subscriptions.rules.js';
import { SUBSCRIPTION_STATUSES, UPDATE_BEHAVIORS } from './subscriptions.schemas.js';
import type { SubscriptionWithRelations } from './subscriptions.service.js';

/** The /v1 SubscriptionItemEntity. */
export const subscriptionItemEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('subscription_item'),
    product_id: z.string(),
    price_id: z.string(),
    units: z.number().int(),
  })
  .meta({ id: 'SubscriptionItemEntity' });
export type SubscriptionItemEntity = z.infer<typeof subscriptionItemEntity>;

export function serializeSubscriptionItem(i: SubscriptionItem): SubscriptionItemEntity {
  return {
    id: i.id,
    mode: i.mode,
    object: 'subscription_item',
    product_id: i.productId,
    price_id: i.priceId,
    units: i.units,
  };
}

/** The /v1 SubscriptionEntity; absent dates and the last transaction are omitted, not null. */
export const subscriptionEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('subscription'),
    product: productEntity,
    customer: customerEntity,
    items: z.array(subscriptionItemEntity),
    collection_method: z.enum(['charge_automatically']),
    status: z.enum(SUBSCRIPTION_STATUSES),
    last_transaction_id: z.string().optional(),
    last_transaction: transactionEntity.optional(),
    last_transaction_date: isoTimestamp.optional(),
    next_transaction_date: isoTimestamp.optional(),
    current_period_start_date: isoTimestamp.optional(),
    current_period_end_date: isoTimestamp.optional(),
    canceled_at: isoTimestamp.nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    discount: appliedDiscountEntity.optional(),
    metadata: metadataField,
  })
  .meta({ id: 'SubscriptionEntity' });
export type SubscriptionEntity = z.infer<typeof subscriptionEntity>;

export const subscriptionList = pageOf(subscriptionEntity).meta({ id: 'SubscriptionListEntity' });

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/**
 * The /v1 SubscriptionEntity, from a row read with SUBSCRIPTION_INCLUDE (subscriptions.service.ts).
 * Optional dates and the last transaction are omitted rather than null: the client's schema
 * rejects null for them (only `canceled_at` may be null).
 */
export function serializeSubscription(s: SubscriptionWithRelations, baseUrl: string): SubscriptionEntity {
  const last = lastPayment(s);
  return {
    id: s.id,
    mode: s.mode,
    object: 'subscription',
    product: serializeProduct(s.product, baseUrl),
    customer: serializeCustomer(s.customer),
    items: s.items.map(serializeSubscriptionItem),
    collection_method: s.collectionMethod as SubscriptionEntity['collection_method'],
    status: s.status,
    ...(last.id ? { last_transaction_id: last.id } : {}),
    ...(last.transaction ? { last_transaction: serializeTransaction(last.transaction) } : {}),
    ...(last.date ? { last_transaction_date: iso(last.date) } : {}),
    ...(s.nextTransactionDate ? { next_transaction_date: iso(s.nextTransactionDate) } : {}),
    ...(s.currentPeriodStartDate ? { current_period_start_date: iso(s.currentPeriodStartDate) } : {}),
    ...(s.currentPeriodEndDate ? { current_period_end_date: iso(s.currentPeriodEndDate) } : {}),
    canceled_at: s.canceledAt ? s.canceledAt.toISOString() : null,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
    ...(s.discount ? { discount: serializeAppliedDiscount(s.discount) } : {}),
    metadata: (s.metadata ?? {}) as Record<string, unknown>,
  };
}

const changeLines = z.object({ amount: wireAmount, tax_amount: wireAmount, discount_amount: wireAmount });

export const subscriptionChangePreview = z
  .object({
    object: z.literal('subscription_change_preview'),
    subscription: z.string(),
    product: z.string(),
    units: z.number().int(),
    update_behavior: z.enum(UPDATE_BEHAVIORS),
    proration_date: isoTimestamp,
    currency: z.string(),
    // The difference for the rest of the period, before discount and tax.
    proration_amount: wireAmount,
    charge_now: changeLines,
    next_invoice: changeLines.extend({ period_start: isoTimestamp, period_end: isoTimestamp }),
  })
  .meta({ id: 'SubscriptionChangePreview' });
export type SubscriptionChangePreview = z.infer<typeof subscriptionChangePreview>;

/** The answer of a change preview: what the change would charge now and on the next invoice. */
export function serializeChangePreview(subscriptionId: string, p: ChangePlan): SubscriptionChangePreview {
  const lines = (l: { amount: bigint; tax: bigint; discount: bigint }) => ({ amount: toWireNumber(l.amount), tax_amount: toWireNumber(l.tax), discount_amount: toWireNumber(l.discount) });
  return {
    object: 'subscription_change_preview',
    subscription: subscriptionId,
    product: p.product.id,
    units: p.units,
    update_behavior: p.behavior,
    proration_date: p.at.toISOString(),
    currency: p.currency,
    proration_amount: toWireNumber(p.difference),
    charge_now: lines(p.chargeNow),
    next_invoice: { ...lines(p.nextInvoice), period_start: p.nextInvoice.periodStart.toISOString(), period_end: p.nextInvoice.periodEnd.toISOString() },
  };
}
