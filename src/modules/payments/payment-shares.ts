import type { Transaction } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { earnCommissions, reverseCommissions } from '../affiliates/commissions.js';
import { allocateToSplits, reverseAllocations, type PaidTransaction } from '../splits/split-allocations.js';

/**
 * What a payment owes others besides the seller: the recipients of the store's splits
 * (src/modules/splits/split-allocations.ts) and the affiliate who referred the sale
 * (src/modules/affiliates/commissions.ts). Written in the transaction that marks the payment
 * paid, and reversed in proportion in the one that settles a refund of it.
 */
export type SharedPayment = PaidTransaction & { affiliateId: string | null };

export async function sharePayments(ctx: RequestContext, paid: readonly SharedPayment[]): Promise<void> {
  await allocateToSplits(ctx, paid);
  await earnCommissions(ctx, paid);
}

/** `sharePayments` for one transaction just marked paid, read back for its amounts. */
export async function sharePaidTransaction(ctx: RequestContext, transactionId: string, productId: string | null, affiliateId: string | null): Promise<void> {
  const t = await db(ctx).transaction.findUniqueOrThrow({ where: { id: transactionId }, select: { amount: true, taxAmount: true, currency: true } });
  await sharePayments(ctx, [{ transactionId, productId, affiliateId, net: t.amount - t.taxAmount, currency: t.currency }]);
}

/** Reverses the shares of a transaction for a refund that succeeded (or a dispute: everything), given everything refunded of it so far. */
export async function reverseShares(ctx: RequestContext, refundOrDisputeId: string, t: Pick<Transaction, 'id' | 'amount' | 'taxAmount' | 'currency'>, refundedSoFar: bigint): Promise<void> {
  await reverseAllocations(ctx, refundOrDisputeId, t, refundedSoFar);
  await reverseCommissions(ctx, refundOrDisputeId, t, refundedSoFar);
}
