import { z } from 'zod';
import type { TransactionStatus, TransactionType } from '../../generated/prisma/enums.js';
import { pageQuery } from '../../lib/pagination.js';
import { resourceId } from '../../lib/schemas.js';

/** Input schemas of the transaction operations, in the /v1 field names (GraphQL converts to them). */

/** payment: a one-time purchase; invoice: a subscription charge. */
export const TRANSACTION_TYPES = ['payment', 'invoice'] as const satisfies readonly TransactionType[];
export const TRANSACTION_STATUSES = [
  'pending',
  'paid',
  'refunded',
  'partialRefund',
  'chargedBack',
  'uncollectible',
  'declined',
  'canceled',
  'void',
] as const satisfies readonly TransactionStatus[];

/** GET /v1/transactions: by id; other query parameters are ignored. */
export const transactionIdSchema = z.object({ transaction_id: resourceId });
export type TransactionIdInput = z.infer<typeof transactionIdSchema>;

export const transactionFilterSchema = z.object({
  customer_id: resourceId.optional(),
  order_id: resourceId.optional(),
  product_id: resourceId.optional(),
});
export type TransactionFilter = z.infer<typeof transactionFilterSchema>;

export const searchTransactionsSchema = pageQuery(10).extend(transactionFilterSchema.shape);
export type SearchTransactionsInput = z.infer<typeof searchTransactionsSchema>;
