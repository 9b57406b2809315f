import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { orNotFound } from '../../lib/errors.js';
import { listing } from '../../db/listing.js';
import type { SearchTransactionsInput, TransactionFilter } from './transactions.schemas.js';

type TransactionSelection = { include?: P.TransactionInclude; select?: P.TransactionSelect };

/**
 * The search filters as a where clause (the tenant is added by the data layer). A transaction
 * is "for a product" when the subscription it bills is for that product, or the order it paid
 * is, or (for a one-time attempt that has neither, e.g. a declined payment) its checkout was.
 */
export function transactionListFilter(f: TransactionFilter = {}): P.TransactionWhereInput {
  return {
    ...(f.customer_id ? { customerId: f.customer_id } : {}),
    ...(f.order_id ? { orderId: f.order_id } : {}),
    ...(f.product_id
      ? {
          OR: [
            { subscription: { productId: f.product_id } },
            { paidOrder: { productId: f.product_id } },
            { subscriptionId: null, checkout: { productId: f.product_id } },
          ],
        }
      : {}),
  };
}

/** A transaction with the caller's selection; null when the caller has no such transaction. */
export function findTransaction(ctx: RequestContext, input: { id: string }, selection: TransactionSelection = {}) {
  return db(ctx).transaction.findUnique({ ...selection, where: { id: input.id } });
}

export async function findTransactionOrThrow(ctx: RequestContext, input: { id: string }) {
  return orNotFound(findTransaction(ctx, input), 'Transaction', input.id);
}

/** Transactions by id, for a per-request loader (GraphQL `Subscription.lastTransaction`); ids the caller does not have are left out. */
export function findTransactionsByIds(ctx: RequestContext, ids: readonly string[]) {
  return db(ctx).transaction.findMany({ where: { id: { in: [...ids] } } });
}

/** The store's transactions, newest first (ids are time-sortable), declined attempts included. */
export function transactionListing(ctx: RequestContext, filter: TransactionFilter) {
  const where = transactionListFilter(filter);
  return listing(db(ctx).transaction, where, { id: 'desc' });
}

export function searchTransactions(ctx: RequestContext, input: SearchTransactionsInput) {
  return transactionListing(ctx, input).page(input);
}
