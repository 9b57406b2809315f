import type { Prisma as P, SubscriptionItem } from '../../generated/prisma/client.js';
import { serializeCustomer } from '../customers/customers.serializer.js';
import { serializeAppliedDiscount } from '../discounts/discounts.serializer.js';
import { PRODUCT_INCLUDE } from '../products/products.service.js';
import { serializeProduct } from '../products/products.serializer.js';
import { serializeTransaction } from '../transactions/transactions.serializer.js';

/**
 * Transaction statuses that mean money was collected at some point. A refund or chargeback
 * later does not make the payment stop being the subscription's last payment.
 */
export const COLLECTED_TRANSACTION_STATUSES = ['paid', 'refunded', 'partialRefund', 'chargedBack'] as const;

/**
 * Relations the /v1 subscription embeds. `transactions` holds at most the newest collected
 * payment (for `last_transaction`); on a list this stays one batched query per relation.
 */
export const SUBSCRIPTION_INCLUDE = {
  product: { include: PRODUCT_INCLUDE },
  customer: true,
  items: { orderBy: { id: 'asc' } },
  discount: true,
  transactions: {
    where: { status: { in: [...COLLECTED_TRANSACTION_STATUSES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 1,
  },
} satisfies P.SubscriptionInclude;

export type SubscriptionWithRelations = P.SubscriptionGetPayload<{ include: typeof SUBSCRIPTION_INCLUDE }>;

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
 * The /v1 SubscriptionEntity. Optional dates and the last transaction are omitted rather than
 * null: the client's schema rejects null for them (only `canceled_at` may be null).
 */
export function serializeSubscription(s: SubscriptionWithRelations, baseUrl: string) {
  const newestPayment = s.transactions[0];
  // The stored pointer wins; the newest collected payment covers rows written before it was set.
  const lastTransactionId = s.lastTransactionId ?? newestPayment?.id;
  const lastTransaction = newestPayment && newestPayment.id === lastTransactionId ? newestPayment : undefined;
  const lastTransactionDate = s.lastTransactionDate ?? lastTransaction?.createdAt;
  return {
    id: s.id,
    mode: s.mode,
    object: 'subscription',
    product: serializeProduct(s.product, baseUrl),
    customer: serializeCustomer(s.customer),
    items: s.items.map(serializeSubscriptionItem),
    collection_method: s.collectionMethod,
    status: s.status,
    ...(lastTransactionId ? { last_transaction_id: lastTransactionId } : {}),
    ...(lastTransaction ? { last_transaction: serializeTransaction(lastTransaction) } : {}),
    ...(lastTransactionDate ? { last_transaction_date: iso(lastTransactionDate) } : {}),
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
