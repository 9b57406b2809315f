import type { Transaction } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { allocate, minOf } from '../../lib/money.js';
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

/** What has gone back of a transaction's net amount: what shares are reversed in proportion to. */
export interface RefundedNet {
  transactionId: string;
  /** The transaction's amount net of tax. */
  net: bigint;
  /** The net part of everything refunded of it so far. */
  refundedNet: bigint;
}

/** Reverses the shares of a transaction for a refund that succeeded (or a dispute: everything), given everything refunded of it so far. */
export async function reverseShares(ctx: RequestContext, refundOrDisputeId: string, t: Pick<Transaction, 'id' | 'amount' | 'taxAmount'>, refundedSoFar: bigint): Promise<void> {
  if (t.amount <= 0n) return;
  const net = t.amount - t.taxAmount;
  // The refunds' tax goes back in proportion, as the refunds computed it; the rest is the net part.
  const [refundedNet] = allocate(minOf(refundedSoFar, t.amount), [net, t.taxAmount]);
  const refunded = { transactionId: t.id, net, refundedNet: refundedNet! };
  await reverseAllocations(ctx, refundOrDisputeId, refunded);
  await reverseCommissions(ctx, refundOrDisputeId, refunded);
}
