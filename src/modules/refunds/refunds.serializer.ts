import { z } from 'zod';
import type { Refund, Transaction } from '../../generated/prisma/client.js';
import type { RefundStatus } from '../../generated/prisma/enums.js';
import { toWireNumber } from '../../lib/money.js';
import { modeField, unixMillis, wireAmount } from '../../lib/response-schemas.js';
import { relatedIdFields, relatedIds, serializeTransaction, transactionEntity } from '../transactions/transactions.serializer.js';
import { REFUND_REASONS } from './refunds.schemas.js';

export type RefundWithTransaction = Refund & { transaction: Transaction };

const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly RefundStatus[];

/** The /v1 RefundEntity; `created_at` is Unix milliseconds, as on its transaction. */
export const refundEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('refund'),
    status: z.enum(REFUND_STATUSES),
    refund_amount: wireAmount,
    refund_currency: z.string(),
    tax_amount: wireAmount,
    reason: z.enum(REFUND_REASONS),
    transaction: transactionEntity,
    ...relatedIdFields,
    created_at: unixMillis,
  })
  .meta({ id: 'RefundEntity' });
export type RefundEntity = z.infer<typeof refundEntity>;

/** The client's RefundEntity (the `refund.created` object and the answer of POST /v1/refunds). */
export function serializeRefund(r: RefundWithTransaction): RefundEntity {
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
