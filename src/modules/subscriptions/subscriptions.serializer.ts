import type { ChangePlan } from './subscription-changes.js';
import { toWireNumber } from '../../lib/money.js';
import type { SubscriptionItem } from '../../generated/prisma/client.js';
import { serializeCustomer } from '../customers/customers.serializer.js';
import { serializeAppliedDiscount } from '../discounts/discounts.serializer.js';
import { serializeProduct } from '../products/products.serializer.js';
import { serializeTransaction } from '../transactions/transactions.serializer.js';
import { lastPayment } from './subscriptions.rules.js';
import type { SubscriptionWithRelations } from './subscriptions.service.js';

export function serializeSubscriptionItem(i: SubscriptionItem) {
  return {
    id: i.id,
    mode: i.mode,
    object: 'subscription_item',
    product_id: i.productId,
    price_id: i.priceId,
    units: i.units,
  };
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/**
 * The /v1 SubscriptionEntity, from a row read with SUBSCRIPTION_INCLUDE (subscriptions.service.ts).
 * Optional dates and the last transaction are omitted rather than null: the client's schema
 * rejects null for them (only `canceled_at` may be null).
 */
export function serializeSubscription(s: SubscriptionWithRelations, baseUrl: string) {
  const last = lastPayment(s);
  return {
    id: s.id,
    mode: s.mode,
    object: 'subscription',
    product: serializeProduct(s.product, baseUrl),
    customer: serializeCustomer(s.customer),
    items: s.items.map(serializeSubscriptionItem),
    collection_method: s.collectionMethod,
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

/** The answer of a change preview: what the change would charge now and on the next invoice. */
export function serializeChangePreview(subscriptionId: string, p: ChangePlan) {
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
