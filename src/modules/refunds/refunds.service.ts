import { reverseShares } from '../payments/payment-shares.js';
import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { cancelJob, scheduleJob, type JobHandler } from '../../jobs/scheduled-jobs.js';
import { AppError, invalidField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { mulDiv, sum } from '../../lib/money.js';
import { recordEvent } from '../events/events.service.js';
import { paymentProcessorFor, type PaymentProcessor, type RefundResult } from '../payments/processor.js';
import type { CreateRefundInput } from './refunds.schemas.js';
import { serializeRefund, type RefundWithTransaction } from './refunds.serializer.js';

/** Settles a refund cut off between the processor and the record (the process died), as the checkout's reconciliation does. */
export const SETTLE_REFUND_JOB = 'refund.settle';
const SETTLE_AFTER_MS = 5 * 60 * 1000;

const REFUNDABLE = new Set(['paid', 'partialRefund']);

function requireProcessor(ctx: RequestContext): PaymentProcessor {
  const processor = paymentProcessorFor(ctx.mode);
  if (!processor) throw new AppError('processor_unavailable', 'No payment processor is configured in this environment');
  return processor;
}

type Reserved = { kind: 'new'; refund: RefundWithTransaction } | { kind: 'existing'; refund: RefundWithTransaction };

/**
 * Step 1, under the transaction's row lock: check what is left to refund and reserve this
 * refund's amount on the transaction, so refunds arriving at once can never give back more than
 * was paid. A retry with the same Idempotency-Key finds the first refund instead.
 */
async function reserve(ctx: RequestContext, input: CreateRefundInput): Promise<Reserved> {
  const key = ctx.idempotencyKey ?? null;
  const existing = key ? await db(ctx).refund.findFirst({ where: { idempotencyKey: key }, include: { transaction: true } }) : null;
  if (existing) {
    if (existing.transactionId !== input.transaction_id || (input.amount !== undefined && input.amount !== existing.amount)) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request', [
        { path: ['Idempotency-Key'], message: 'was already used with a different request; use a new key for a new request' },
      ]);
    }
    return { kind: 'existing', refund: existing };
  }
  if (!(await lockRow(ctx, 'Transaction', input.transaction_id))) throw notFound('Transaction', input.transaction_id);
  requireProcessor(ctx);
  const t = await db(ctx).transaction.findUniqueOrThrow({ where: { id: input.transaction_id } });
  if (t.status === 'refunded') throw new AppError('invalid_state', `Transaction ${t.id} is refunded in full`, [{ path: ['transaction_id'], message: 'is refunded in full' }]);
  if (!REFUNDABLE.has(t.status)) {
    throw new AppError('invalid_state', `Transaction ${t.id} is ${t.status}; only paid transactions can be refunded`, [{ path: ['transaction_id'], message: `is ${t.status}, not paid` }]);
  }
  const left = t.amountPaid - t.refundedAmount;
  if (left <= 0n) throw new AppError('invalid_state', `Transaction ${t.id} is refunded in full`, [{ path: ['transaction_id'], message: 'is refunded in full' }]);
  const amount = input.amount ?? left;
  if (amount > left) throw invalidField(['amount'], `must be at most ${left}, what is left to refund of ${t.amountPaid}`);
  // Tax goes back in proportion; the refund that empties the payment takes what is left of it, so the parts add up.
  const earlier = await db(ctx).refund.findMany({ where: { transactionId: t.id, status: { not: 'failed' } }, select: { taxAmount: true } });
  const taxBack = amount === left ? t.taxAmount - sum(earlier.map((r) => r.taxAmount)) : mulDiv(amount, t.taxAmount, t.amountPaid);
  const id = newId('refund');
  const created = await db(ctx).refund.createMany({
    data: [{ id, transactionId: t.id, amount, taxAmount: taxBack, currency: t.currency, reason: input.reason, status: 'pending', idempotencyKey: key, createdAt: ctx.clock.now() }],
    skipDuplicates: true,
  });
  if (created.count === 0) {
    // The same key, at the same time: the other request reserved first.
    const other = await db(ctx).refund.findFirstOrThrow({ where: { idempotencyKey: key }, include: { transaction: true } });
    return { kind: 'existing', refund: other };
  }
  await db(ctx).transaction.update({ where: { id: t.id }, data: { refundedAmount: { increment: amount } } });
  await scheduleJob(ctx, SETTLE_REFUND_JOB, id, new Date(ctx.clock.now().getTime() + SETTLE_AFTER_MS));
  return { kind: 'new', refund: await db(ctx).refund.findUniqueOrThrow({ where: { id }, include: { transaction: true } }) };
}

/**
 * Step 3, under the lock again: record the processor's answer once. Succeeded: the transaction
 * is `refunded` or `partialRefund` (by what has been given back for good) and `refund.created`
 * is recorded. Failed: the reservation is given back.
 */
async function settle(ctx: RequestContext, refundId: string, result: RefundResult): Promise<RefundWithTransaction> {
  const pending = await db(ctx).refund.findUniqueOrThrow({ where: { id: refundId } });
  await lockRow(ctx, 'Transaction', pending.transactionId);
  const r = await db(ctx).refund.findUniqueOrThrow({ where: { id: refundId } });
  if (r.status !== 'pending') return db(ctx).refund.findUniqueOrThrow({ where: { id: refundId }, include: { transaction: true } });
  await cancelJob(ctx, SETTLE_REFUND_JOB, r.id);
  if (result.status === 'failed') {
    await db(ctx).refund.update({ where: { id: r.id }, data: { status: 'failed' } });
    await db(ctx).transaction.update({ where: { id: r.transactionId }, data: { refundedAmount: { decrement: r.amount } } });
    return db(ctx).refund.findUniqueOrThrow({ where: { id: r.id }, include: { transaction: true } });
  }
  await db(ctx).refund.update({ where: { id: r.id }, data: { status: 'succeeded', processorReference: result.reference } });
  const t = await db(ctx).transaction.findUniqueOrThrow({ where: { id: r.transactionId } });
  const given = sum((await db(ctx).refund.findMany({ where: { transactionId: t.id, status: 'succeeded' }, select: { amount: true } })).map((x) => x.amount));
  // A payment charged back while this refund was under way stays charged back: the dispute took
  // back all it had not yet refunded, and reversed what it owed others in full already.
  if (t.status !== 'chargedBack') {
    await db(ctx).transaction.update({ where: { id: t.id }, data: { status: given >= t.amountPaid ? 'refunded' : 'partialRefund' } });
    await reverseShares(ctx, r.id, t, given);
  }
  const settled = await db(ctx).refund.findUniqueOrThrow({ where: { id: r.id }, include: { transaction: true } });
  await recordEvent(ctx, 'refund.created', serializeRefund(settled) as unknown as P.InputJsonObject);
  return settled;
}

/**
 * Refunds (part of) a paid transaction. Three steps, so that no transaction is open while the
 * processor is called: reserve, refund with the refund's id as the processor's key, settle.
 */
export async function createRefund(ctx: RequestContext, input: CreateRefundInput): Promise<RefundWithTransaction> {
  const reserved = await inTransaction(ctx, (tx) => reserve(tx, input));
  if (reserved.kind === 'existing') return reserved.refund;
  const processor = requireProcessor(ctx);
  const { refund } = reserved;
  let result: RefundResult;
  try {
    result = await processor.refund({ idempotencyKey: refund.id, chargeReference: refund.transaction.processorReference ?? refund.transaction.id, amount: refund.amount, currency: refund.currency });
  } catch {
    // Unknown outcome: the refund stays pending and the settle job asks the processor later.
    throw new AppError('processor_unavailable', 'The refund could not be confirmed yet; it is settled automatically within minutes. Nothing more will be refunded.');
  }
  return inTransaction(ctx, (tx) => settle(tx, refund.id, result));
}

/** A refund left pending (the process died after reserving): settled from the processor's record, or given back. */
export const settleRefundJob: JobHandler = {
  kind: SETTLE_REFUND_JOB,
  retryDelaysMs: [60_000, 5 * 60_000, 30 * 60_000],
  async run(ctx, refundId) {
    const processor = requireProcessor(ctx);
    const result = (await processor.lookupRefund(refundId)) ?? { status: 'failed', message: 'never reached the processor' };
    await inTransaction(ctx, (tx) => settle(tx, refundId, result));
  },
};
