import { z } from 'zod';
import type { Transaction } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { modeField, unixMillis, wireAmount } from '../../lib/response-schemas.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from './transactions.schemas.js';


/** The /v1 TransactionEntity; its times are Unix milliseconds. */
export const transactionEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('transaction'),
    amount: wireAmount,
    amount_paid: wireAmount,
    discount_amount: wireAmount,
    currency: z.string(),
    type: z.enum(TRANSACTION_TYPES),
    tax_country: z.string().nullable(),
    tax_amount: wireAmount,
    status: z.enum(TRANSACTION_STATUSES),
    refunded_amount: wireAmount,
    order: z.string().nullable(),
    subscription: z.string().nullable(),
    customer: z.string().nullable(),
    description: z.string().optional(),
    period_start: unixMillis.optional(),
    period_end: unixMillis.optional(),
    created_at: unixMillis,
  })
  .meta({ id: 'TransactionEntity' });
export type TransactionEntity = z.infer<typeof transactionEntity>;

/**
 * The /v1 TransactionEntity. Unlike orders its times are Unix milliseconds. `description` and
 * the period bounds are omitted when absent: the client's schema accepts a missing value but
 * not null for them.
 */
export function serializeTransaction(t: Transaction): TransactionEntity {
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

/** The fields `relatedIds` may write, to spread into the schema of a refund or dispute. */
export const relatedIdFields = {
  order: z.string().optional(),
  subscription: z.string().optional(),
  customer: z.string().optional(),
  checkout: z.string().optional(),
};

/** The ids a refund or dispute names beside its transaction; absent ones are left out (the client's models take no null there). */
export function relatedIds(t: Pick<Transaction, 'orderId' | 'subscriptionId' | 'customerId' | 'checkoutId'>) {
  return {
    ...(t.orderId ? { order: t.orderId } : {}),
    ...(t.subscriptionId ? { subscription: t.subscriptionId } : {}),
    ...(t.customerId ? { customer: t.customerId } : {}),
    ...(t.checkoutId ? { checkout: t.checkoutId } : {}),
  };
}
