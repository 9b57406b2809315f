import type { Transaction } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';

/**
 * The /v1 TransactionEntity. Unlike orders its times are Unix milliseconds. `description` and
 * the period bounds are omitted when absent: the client's schema accepts a missing value but
 * not null for them.
 */
export function serializeTransaction(t: Transaction) {
  return {
    id: t.id,
    mode: t.mode,
    object: 'transaction',
    amount: toWireNumber(t.amount),
    amount_paid: toWireNumber(t.amountPaid),
    discount_amount: toWireNumber(t.discountAmount),
    currency: t.currency,
    type: t.type,
    tax_country: t.taxCountry,
    tax_amount: toWireNumber(t.taxAmount),
    status: t.status,
    refunded_amount: toWireNumber(t.refundedAmount),
    order: t.orderId,
    subscription: t.subscriptionId,
    customer: t.customerId,
    ...(t.description != null ? { description: t.description } : {}),
    ...(t.periodStart ? { period_start: t.periodStart.getTime() } : {}),
    ...(t.periodEnd ? { period_end: t.periodEnd.getTime() } : {}),
    created_at: t.createdAt.getTime(),
  };
}

/** The ids a refund or dispute names beside its transaction; absent ones are left out (the client's models take no null there). */
export function relatedIds(t: Pick<Transaction, 'orderId' | 'subscriptionId' | 'customerId' | 'checkoutId'>) {
  return {
    ...(t.orderId ? { order: t.orderId } : {}),
    ...(t.subscriptionId ? { subscription: t.subscriptionId } : {}),
    ...(t.customerId ? { customer: t.customerId } : {}),
    ...(t.checkoutId ? { checkout: t.checkoutId } : {}),
  };
}
