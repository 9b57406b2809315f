import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { serializeTransaction } from './transactions.serializer.js';
import { searchTransactionsSchema, transactionIdSchema } from './transactions.schemas.js';
import { findTransactionOrThrow, searchTransactions } from './transactions.service.js';

/** The transaction operations, as REST (transactions.routes.ts) runs them; GraphQL reads through the same service. */
export const getTransactionOp = defineOperation({
  name: 'transactions.get',
  input: transactionIdSchema,
  write: false,
  run: (ctx, input) => findTransactionOrThrow(ctx, { id: input.transaction_id }),
  render: (_ctx, t) => serializeTransaction(t),
});

export const searchTransactionsOp = defineOperation({
  name: 'transactions.search',
  input: searchTransactionsSchema,
  write: false,
  run: searchTransactions,
  render: (_ctx, page) => mapPage(page, serializeTransaction),
});
