import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { scheduleJob, type JobHandler } from '../../jobs/scheduled-jobs.js';
import { newId } from '../../lib/ids.js';
import { toWireNumber } from '../../lib/money.js';
import { recordEvent } from '../events/events.service.js';
import type { ChargeResult } from '../payments/processor.js';
import { reverseShares } from '../payments/payment-shares.js';
import { relatedIds, serializeTransaction } from '../transactions/transactions.serializer.js';

/**
 * Disputes (chargebacks). A real processor reports them by its own webhook; the simulated one
 * says at charge time that the buyer will dispute (test card 0259), and this job plays the
 * report at that time, by the store's clock.
 */
export const DISPUTE_JOB = 'transaction.dispute';

/** In the transaction that records a successful charge: when the processor says a dispute will come, expect it. */
export async function expectDispute(ctx: RequestContext, transactionId: string, charge: Extract<ChargeResult, { status: 'succeeded' }>): Promise<void> {
  if (charge.disputeAfterMs === undefined) return;
  await scheduleJob(ctx, DISPUTE_JOB, transactionId, new Date(ctx.clock.now().getTime() + charge.disputeAfterMs));
}

/**
 * Records the dispute of a paid transaction: `chargedBack`, a Dispute, and `dispute.created`,
 * once. The money is gone, so what it owed others (split allocations, the affiliate's
 * commission) is reversed in full, as a full refund would.
 */
export async function recordDispute(ctx: RequestContext, transactionId: string): Promise<void> {
  await inTransaction(ctx, async (tx) => {
    if (!(await lockRow(tx, 'Transaction', transactionId))) return;
    const t = await db(tx).transaction.findUniqueOrThrow({ where: { id: transactionId } });
    if (t.status !== 'paid' && t.status !== 'partialRefund') return;
    const now = tx.clock.now();
    const dispute = await db(tx).dispute.create({ data: { id: newId('dispute'), transactionId, amount: t.amountPaid - t.refundedAmount, currency: t.currency, createdAt: now } });
    const charged = await db(tx).transaction.update({ where: { id: transactionId }, data: { status: 'chargedBack' } });
    await reverseShares(tx, dispute.id, t, t.amount);
    await recordEvent(tx, 'dispute.created', {
      id: dispute.id,
      mode: dispute.mode,
      object: 'dispute',
      amount: toWireNumber(dispute.amount),
      currency: dispute.currency,
      transaction: serializeTransaction(charged),
      ...relatedIds(t),
      created_at: dispute.createdAt.getTime(),
    } as unknown as P.InputJsonObject);
  });
}

export const disputeJob: JobHandler = { kind: DISPUTE_JOB, retryDelaysMs: [60_000, 5 * 60_000], run: recordDispute };
