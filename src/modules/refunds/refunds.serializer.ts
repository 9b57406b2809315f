import type { Refund, Transaction } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { relatedIds, serializeTransaction } from '../transactions/transactions.serializer.js';

export type RefundWithTransaction = Refund & { transaction: Transaction };

/** The client's RefundEntity (the `refund.created` object and the answer of POST /v1/refunds). */
export function serializeRefund(r: RefundWithTransaction) {
  const t = r.transaction;
  return {
    id: r.id,
    mode: r.mode,
    object: 'refund',
    status: r.status,
    refund_amount: toWireNumber(r.amount),
    refund_currency: r.currency,
    tax_amount: toWireNumber(r.taxAmount),
    reason: r.reason,
    transaction: serializeTransaction(t),
    ...relatedIds(t),
    created_at: r.createdAt.getTime(),
  };
}
