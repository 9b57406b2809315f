import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { serializeTransaction, transactionEntity } from './transactions.serializer.js';
import { searchTransactionsSchema, transactionIdSchema } from './transactions.schemas.js';
import { findTransactionOrThrow, searchTransactions } from './transactions.service.js';

/** The transaction operations, as REST (transactions.routes.ts) runs them; GraphQL reads through the same service. */
export const getTransactionOp = defineOperation({
  name: 'transactions.get',
  summary: 'Retrieve a transaction',
  description: 'By `transaction_id`.',
  input: transactionIdSchema,
  write: false,
  output: transactionEntity,
  run: (ctx, input) => findTransactionOrThrow(ctx, { id: input.transaction_id }),
  render: (_ctx, t) => serializeTransaction(t),
});

export const searchTransactionsOp = defineOperation({
  name: 'transactions.search',
  summary: 'List transactions',
  description: 'Filter by customer, order and product. Paged by `page_number` and `page_size` (at most 100).',
  input: searchTransactionsSchema,
  write: false,
  output: pageOf(transactionEntity),
  run: searchTransactions,
  render: (_ctx, page) => mapPage(page, serializeTransaction),
});
