import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';

const id = z.string().trim().min(1).max(100);

export const retrieveTransactionSchema = z.object({ transaction_id: id });

export const searchTransactionsSchema = pageQuery(10).extend({
  customer_id: id.optional(),
  order_id: id.optional(),
  product_id: id.optional(),
});

export type TransactionFilter = { customer_id?: string; order_id?: string; product_id?: string };
