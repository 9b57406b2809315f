import type { Prisma as P } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { retrieveTransactionSchema, searchTransactionsSchema, type TransactionFilter } from './transactions.schemas.js';

/** Ids are time-sortable, so this is newest first with a stable tie-break. */
export const TRANSACTIONS_NEWEST_FIRST = { id: 'desc' } as const satisfies P.TransactionOrderByWithRelationInput;

/**
 * The store's transactions narrowed by the search filters. A transaction is "for a product"
 * when the subscription it bills is for that product, or the order it paid is, or (for a
 * one-time attempt that has neither, e.g. a declined payment) its checkout was.
 */
export function transactionListFilter(ctx: RequestContext, f: TransactionFilter = {}): P.TransactionWhereInput {
  return {
    ...scope(ctx),
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

export async function findTransaction<Q extends { include?: P.TransactionInclude; select?: P.TransactionSelect }>(
  ctx: RequestContext,
  id: string,
  query?: Q,
) {
  const row = await ctx.db.transaction.findFirst({ ...(query ?? {}), where: { id, ...scope(ctx) } });
  if (!row) throw notFound('Transaction', id);
  return row;
}

export async function retrieveTransaction(ctx: RequestContext, raw: unknown) {
  const input = parseInput(retrieveTransactionSchema, raw);
  return findTransaction(ctx, input.transaction_id);
}

export async function searchTransactions(ctx: RequestContext, raw: unknown) {
  const input = parseInput(searchTransactionsSchema, raw);
  const where = transactionListFilter(ctx, input);
  const [items, total] = await Promise.all([
    ctx.db.transaction.findMany({ where, orderBy: TRANSACTIONS_NEWEST_FIRST, ...pageWindow(input) }),
    ctx.db.transaction.count({ where }),
  ]);
  return toPage(items, total, input);
}
