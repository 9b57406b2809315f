import type { RefundedNet } from '../payments/payment-shares.js';
import type { RequestContext } from '../../context.js';
import { readPaymentSplits } from '../../db/splits.js';
import { db, insertRows } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { allocate } from '../../lib/money.js';

/**
 * Splits applied to money. Every paid transaction of a store with enabled splits (the store's
 * own, and its product's) records, in the transaction that marks it paid, one allocation per
 * enabled recipient: the amount net of tax apportioned by largest remainder over the
 * recipients' shares and the seller's rest, in one go across every split that applies, so the
 * parts and the seller's share add up to the net amount exactly. A refund reverses them in
 * proportion, computed on the refunds so far as a whole, so a transaction refunded in full in
 * any number of steps reverses every allocation exactly.
 */
export interface PaidTransaction {
  transactionId: string;
  /** The product paid for, for product splits; null when there is none. */
  productId: string | null;
  /** Minor units, tax excluded. */
  net: bigint;
  currency: string;
}

/** 100 % in hundredths of a percent, the unit shares are weighed in. */
const WHOLE = 100_00n;

const basisPointsOf = (amount: { toString(): string }) => BigInt(Math.round(Number(amount.toString()) * 100));

export async function allocateToSplits(ctx: RequestContext, paid: readonly PaidTransaction[]): Promise<void> {
  const payable = paid.filter((p) => p.net > 0n);
  if (!payable.length) return;
  const productIds = [...new Set(payable.flatMap((p) => (p.productId ? [p.productId] : [])))];
  const splits = await readPaymentSplits(ctx, productIds);
  if (!splits.length) return;
  const now = ctx.clock.now();
  const rows = payable.flatMap((p) => {
    const shares = splits
      .filter((s) => s.type === 'store' || s.typeReference === p.productId)
      .flatMap((s) => s.recipients.map((r) => ({ splitId: s.id, recipient: r, weight: basisPointsOf(r.amount) })));
    if (!shares.length) return [];
    const total = shares.reduce((sum, x) => sum + x.weight, 0n);
    // Creation keeps a payment's shares at 100 % at most; the seller's weight is what is left.
    const parts = allocate(p.net, [...shares.map((x) => x.weight), total < WHOLE ? WHOLE - total : 0n]);
    return shares.flatMap((x, i) =>
      parts[i] === 0n
        ? []
        : [{ id: newId('splitAllocation'), transactionId: p.transactionId, splitId: x.splitId, recipientId: x.recipient.id, recipientStoreId: x.recipient.recipientReference, amount: parts[i]!, currency: p.currency, refundId: null, createdAt: now }],
    );
  });
  if (rows.length) await insertRows(ctx, 'SplitAllocation', rows);
}

/**
 * Reverses a transaction's allocations for a refund that succeeded, given the net part of
 * everything refunded of it so far (this refund included), apportioned over the allocations
 * and the seller's share, less what earlier refunds reversed already.
 */
export async function reverseAllocations(ctx: RequestContext, refundId: string, { transactionId, net, refundedNet }: RefundedNet): Promise<void> {
  const rows = await db(ctx).splitAllocation.findMany({ where: { transactionId }, orderBy: { id: 'asc' } });
  const original = rows.filter((r) => r.refundId === null);
  if (!original.length) return;
  const allocated = original.reduce((sum, r) => sum + r.amount, 0n);
  const targets = allocate(refundedNet, [...original.map((r) => r.amount), net - allocated]);
  const now = ctx.clock.now();
  const reversals = original.flatMap((r, i) => {
    const reversed = rows.filter((x) => x.refundId !== null && x.recipientId === r.recipientId && x.splitId === r.splitId).reduce((sum, x) => sum - x.amount, 0n);
    const due = targets[i]! - reversed;
    return due === 0n ? [] : [{ id: newId('splitAllocation'), transactionId, splitId: r.splitId, recipientId: r.recipientId, recipientStoreId: r.recipientStoreId, amount: -due, currency: r.currency, refundId, createdAt: now }];
  });
  if (reversals.length) await insertRows(ctx, 'SplitAllocation', reversals);
}
