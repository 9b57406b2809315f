import type { RequestContext } from '../../context.js';
import { db, insertRows } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { basisPointsOf, mulDiv } from '../../lib/money.js';
import type { RefundedNet } from '../payments/payment-shares.js';

/**
 * Commissions applied to money. A paid transaction of a sale an affiliate referred (the
 * purchase, and the subscription's renewals and prorations) earns the affiliate the program's
 * rate of the amount net of tax, rounded half away from zero to the minor unit, written in the
 * transaction that marks it paid. A refund reverses it in proportion to what has been refunded
 * of the transaction so far, so a transaction refunded in full in any number of steps reverses
 * its commission exactly. Payments of an affiliate who is no longer active earn nothing.
 */
export interface ReferredPayment {
  transactionId: string;
  affiliateId: string | null;
  /** Minor units, tax excluded. */
  net: bigint;
  currency: string;
}

export async function earnCommissions(ctx: RequestContext, paid: readonly ReferredPayment[]): Promise<void> {
  const referred = paid.filter((p): p is ReferredPayment & { affiliateId: string } => p.affiliateId !== null && p.net > 0n);
  if (!referred.length) return;
  const [program, active] = await Promise.all([
    db(ctx).affiliateProgram.findFirst({ select: { commissionRate: true } }),
    db(ctx).affiliate.findMany({ where: { id: { in: [...new Set(referred.map((p) => p.affiliateId))] }, status: 'active' }, select: { id: true } }),
  ]);
  if (!program) return;
  const earning = new Set(active.map((a) => a.id));
  const now = ctx.clock.now();
  const rows = referred.flatMap((p) => {
    const amount = basisPointsOf(p.net, program.commissionRate);
    return earning.has(p.affiliateId) && amount > 0n
      ? [{ id: newId('affiliateCommission'), affiliateId: p.affiliateId, transactionId: p.transactionId, amount, currency: p.currency, refundId: null, paidAt: null, createdAt: now }]
      : [];
  });
  if (rows.length) await insertRows(ctx, 'AffiliateCommission', rows);
}

/**
 * Reverses a transaction's commission for a refund that succeeded, given the net part of
 * everything refunded of it so far (this refund included): the commission times the refunded
 * share of the net amount, less what earlier refunds reversed already.
 */
export async function reverseCommissions(ctx: RequestContext, refundId: string, { transactionId, net, refundedNet }: RefundedNet): Promise<void> {
  const rows = await db(ctx).affiliateCommission.findMany({ where: { transactionId }, orderBy: { id: 'asc' } });
  const original = rows.filter((r) => r.refundId === null);
  // A payment with nothing net of tax earned no commission.
  if (!original.length || net <= 0n) return;
  const now = ctx.clock.now();
  const reversals = original.flatMap((c) => {
    const target = refundedNet >= net ? c.amount : mulDiv(c.amount, refundedNet, net);
    const reversed = rows.filter((x) => x.refundId !== null && x.affiliateId === c.affiliateId).reduce((sum, x) => sum - x.amount, 0n);
    const due = target - reversed;
    return due <= 0n ? [] : [{ id: newId('affiliateCommission'), affiliateId: c.affiliateId, transactionId, amount: -due, currency: c.currency, refundId, paidAt: null, createdAt: now }];
  });
  if (reversals.length) await insertRows(ctx, 'AffiliateCommission', reversals);
}
