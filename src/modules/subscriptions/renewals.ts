import type { Prisma as P, Transaction } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { scheduleJob, type JobHandler } from '../../jobs/scheduled-jobs.js';
import { newId } from '../../lib/ids.js';
import { addInterval, type Interval } from '../../lib/periods.js';
import { priceLines } from '../checkouts/checkout-quote.js';
import { expectDispute } from '../disputes/disputes.service.js';
import { paymentProcessorFor, type CardDetails, type ChargeResult } from '../payments/processor.js';
import { AppError } from '../../lib/errors.js';
import { announceSubscription } from './subscriptions.service.js';

/**
 * Renewals and dunning: one job per subscription (`subscription.renew`), due at the end of its
 * period, or at the next retry while a renewal's payment is failing. Each try at collecting a
 * period is one invoice transaction, unique by (subscription, period start, attempt); its
 * charge's idempotency key is built from the same three, so however many workers run, and
 * whatever dies when, a try charges the card at most once.
 */
export const RENEW_JOB = 'subscription.renew';

/** Days after a renewal's first failure at which it is tried again; then the subscription is unpaid. */
export const DEFAULT_RETRY_DAYS: readonly number[] = [1, 3, 5, 7];

let configuredRetryDays: readonly number[] = DEFAULT_RETRY_DAYS;

/** The process's dunning schedule (DUNNING_RETRY_DAYS), set once at start by the server and the worker. */
export function configureDunningSchedule(days: readonly number[]): void {
  configuredRetryDays = days;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Statuses a subscription is charged in; canceled, paused, unpaid and scheduled-to-end ones are not. */
const COLLECTING = new Set(['active', 'trialing', 'past_due']);

type Sub = P.SubscriptionGetPayload<{ include: { product: true; discount: true; items: true } }>;

interface Try {
  subscriptionId: string;
  transaction: Transaction;
  paymentMethod: string | null;
  key: string;
}

/** The next period of a subscription: from the current period's end to its anchor plus one more interval. */
export function nextPeriod(s: Pick<Sub, 'billingAnchor' | 'billingPeriods' | 'currentPeriodEndDate' | 'product'>): { start: Date; end: Date } {
  const interval = (s.product.recurringInterval ?? 'month') as Interval;
  const count = s.product.recurringIntervalCount ?? 1;
  const start = s.currentPeriodEndDate!;
  const anchor = s.billingAnchor ?? start;
  return { start, end: addInterval(anchor, interval, count * (s.billingPeriods + 1)) };
}

export const chargeKeyOf = (subscriptionId: string, periodStart: Date, attempt: number) => `${subscriptionId}:${periodStart.toISOString()}:${attempt}`;

/**
 * What the next period costs: price × units, the discount while it lasts, tax as at checkout,
 * plus what mid-period changes left for this invoice (a credit lowers it, never below zero; the
 * rest of a credit waits for the invoice after).
 */
export function invoiceFor(s: Sub) {
  const item = s.items[0];
  const discounted = s.discount !== null && (s.discountPeriodsLeft === null || s.discountPeriodsLeft > 0);
  const regular = priceLines({
    product: s.product,
    unitPrice: item?.unitPrice ?? s.product.price,
    units: item?.units ?? 1,
    discount: discounted ? s.discount : null,
    country: s.taxCountry,
    taxId: s.taxId,
  });
  const amount = regular.amount_due + s.pendingProrationAmount;
  const tax = regular.tax_amount + s.pendingProrationTax;
  const discount = regular.discount_amount + s.pendingProrationDiscount;
  if (amount >= 0n) return { ...regular, amount_due: amount, tax_amount: tax, discount_amount: discount, carried: { amount: 0n, tax: 0n, discount: 0n } };
  return { ...regular, amount_due: 0n, tax_amount: 0n, discount_amount: 0n, carried: { amount, tax, discount } };
}

/**
 * Step 1, under the subscription's row lock: decide whether anything is due and record the try
 * (a pending invoice transaction). A try left pending by a worker that died is taken up again
 * with the same key, so the processor answers with that try's outcome instead of charging anew.
 */
async function startTry(ctx: RequestContext, subscriptionId: string, retryDays: readonly number[], options: { force?: boolean } = {}): Promise<Try | null> {
  if (!(await lockRow(ctx, 'Subscription', subscriptionId))) return null;
  const s = await db(ctx).subscription.findUniqueOrThrow({ where: { id: subscriptionId }, include: { product: true, discount: true, items: true } });
  const now = ctx.clock.now();
  if (s.status === 'scheduled_cancel' && s.currentPeriodEndDate) {
    if (s.currentPeriodEndDate > now) await scheduleJob(ctx, RENEW_JOB, subscriptionId, s.currentPeriodEndDate);
    else await executeScheduled(ctx, s);
    return null;
  }
  // The customer paying with a new card (portal) collects a past-due or unpaid period at once.
  const forced = options.force === true && (s.status === 'past_due' || s.status === 'unpaid');
  if ((!COLLECTING.has(s.status) && !forced) || !s.currentPeriodEndDate) return null;
  const { start, end } = nextPeriod(s);
  const tries = await db(ctx).transaction.findMany({ where: { subscriptionId, periodStart: start, attempt: { not: null } }, orderBy: { attempt: 'desc' } });
  const last = tries[0];
  if (last?.status === 'pending') return { subscriptionId, transaction: last, paymentMethod: s.paymentMethodToken, key: chargeKeyOf(subscriptionId, start, last.attempt!) };
  if (last?.status === 'paid') return null;
  // Not due yet (the job ran early, or the period was moved): come back when it is.
  const dueAt = forced ? now : last ? retryAt(last, tries, retryDays) : start;
  if (dueAt === null) return null;
  if (dueAt > now) {
    await scheduleJob(ctx, RENEW_JOB, subscriptionId, dueAt);
    return null;
  }
  // A period's invoice is fixed when first issued: retries ask for the same amount. Issuing it
  // takes in the prorations waiting for it (a credit larger than it waits for the next one).
  let amounts: { amount: bigint; discountAmount: bigint; taxAmount: bigint; taxCountry: string | null; currency: string };
  if (last) {
    amounts = { amount: last.amount, discountAmount: last.discountAmount, taxAmount: last.taxAmount, taxCountry: last.taxCountry, currency: last.currency };
  } else {
    const lines = invoiceFor(s);
    amounts = { amount: lines.amount_due, discountAmount: lines.discount_amount, taxAmount: lines.tax_amount, taxCountry: lines.tax_country, currency: lines.currency };
    const pending = s.pendingProrationAmount !== 0n || s.pendingProrationTax !== 0n || s.pendingProrationDiscount !== 0n;
    if (pending) {
      await db(ctx).subscription.update({
        where: { id: subscriptionId },
        data: { pendingProrationAmount: lines.carried.amount, pendingProrationTax: lines.carried.tax, pendingProrationDiscount: lines.carried.discount },
      });
    }
  }
  const attempt = (last?.attempt ?? 0) + 1;
  const transaction = await db(ctx).transaction.create({
    data: {
      id: newId('transaction'),
      customerId: s.customerId,
      subscriptionId,
      ...amounts,
      type: 'invoice',
      status: 'pending',
      description: `Subscription to ${s.product.name}`,
      periodStart: start,
      periodEnd: end,
      attempt,
      createdAt: now,
    },
  });
  return { subscriptionId, transaction, paymentMethod: s.paymentMethodToken, key: chargeKeyOf(subscriptionId, start, attempt) };
}

/** When the try after `last` (declined) is due, by the dunning schedule from the period's first failure; null when none is left. */
function retryAt(last: Pick<Transaction, 'attempt'>, tries: Transaction[], retryDays: readonly number[]): Date | null {
  const first = tries[tries.length - 1]!;
  const delay = retryDays[last.attempt! - 1];
  return delay === undefined ? null : new Date(first.createdAt.getTime() + delay * DAY_MS);
}

/** At the end of its period a `scheduled_cancel` subscription does what was scheduled: cancel or pause. */
async function executeScheduled(ctx: RequestContext, s: Sub): Promise<void> {
  if (s.scheduledAction === 'pause') {
    await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'paused', scheduledAction: null, nextTransactionDate: null } });
    await announceSubscription(ctx, s.id, ['subscription.paused']);
    return;
  }
  await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'canceled', scheduledAction: null, canceledAt: s.currentPeriodEndDate, nextTransactionDate: null } });
  await announceSubscription(ctx, s.id, ['subscription.canceled']);
}

/**
 * Step 3, under the row lock again: record the outcome of the try, once. Paid: the period moves
 * on, the subscription is active, and the next renewal is scheduled. Declined: past due, with a
 * retry by the schedule, or unpaid when the schedule is spent.
 */
async function finishTry(ctx: RequestContext, t: Try, result: ChargeResult, retryDays: readonly number[]): Promise<void> {
  await lockRow(ctx, 'Subscription', t.subscriptionId);
  const settled = await db(ctx).transaction.updateMany({
    where: { id: t.transaction.id, status: 'pending' },
    data:
      result.status === 'succeeded'
        ? { status: 'paid', amountPaid: t.transaction.amount, processorReference: result.reference }
        : { status: 'declined', declineCode: result.code },
  });
  if (settled.count === 0) return; // another worker recorded this try's outcome
  const s = await db(ctx).subscription.findUniqueOrThrow({ where: { id: t.subscriptionId }, select: { id: true, status: true, discountId: true, discountPeriodsLeft: true } });
  const now = ctx.clock.now();
  if (result.status === 'succeeded') {
    const wasActive = s.status === 'active';
    const periodEnd = t.transaction.periodEnd!;
    await db(ctx).subscription.update({
      where: { id: s.id },
      data: {
        status: 'active',
        currentPeriodStartDate: t.transaction.periodStart,
        currentPeriodEndDate: periodEnd,
        nextTransactionDate: periodEnd,
        billingPeriods: { increment: 1 },
        lastTransactionId: t.transaction.id,
        lastTransactionDate: now,
        ...(s.discountId && s.discountPeriodsLeft !== null && t.transaction.discountAmount > 0n ? { discountPeriodsLeft: { decrement: 1 } } : {}),
      },
    });
    await scheduleJob(ctx, RENEW_JOB, s.id, periodEnd);
    await expectDispute(ctx, t.transaction.id, result);
    // From a trial or from past due, the subscription is active again: say so before it is paid.
    await announceSubscription(ctx, s.id, wasActive ? ['subscription.paid'] : ['subscription.active', 'subscription.paid']);
    return;
  }
  const tries = await db(ctx).transaction.findMany({ where: { subscriptionId: s.id, periodStart: t.transaction.periodStart, attempt: { not: null } }, orderBy: { attempt: 'desc' } });
  const next = retryAt(t.transaction, tries, retryDays);
  if (next === null) {
    await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'unpaid', nextTransactionDate: null } });
    await announceSubscription(ctx, s.id, ['subscription.unpaid']);
    return;
  }
  const firstFailure = s.status !== 'past_due';
  await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'past_due', nextTransactionDate: next } });
  await scheduleJob(ctx, RENEW_JOB, s.id, next);
  // The first failure of a period: it ended without payment.
  if (firstFailure) await announceSubscription(ctx, s.id, ['subscription.past_due', 'subscription.expired']);
}

/**
 * Collects what is due on one subscription: a renewal at its period's end, a trial's first
 * period, or a dunning retry. Three steps so that no transaction is open during the charge.
 */
export async function collectDue(ctx: RequestContext, subscriptionId: string, retryDays: readonly number[] = configuredRetryDays): Promise<void> {
  const processor = paymentProcessorFor(ctx.mode);
  if (!processor) throw new Error(`no payment processor in ${ctx.mode}; renewal of ${subscriptionId} waits`);
  const started = await inTransaction(ctx, (tx) => startTry(tx, subscriptionId, retryDays));
  if (!started) return;
  const { transaction } = started;
  // An invoice of nothing (a 100% discount) is paid without calling the processor.
  const result: ChargeResult =
    transaction.amount === 0n
      ? { status: 'succeeded', reference: `free_${transaction.id}` }
      : started.paymentMethod
        ? await processor.charge({ idempotencyKey: started.key, amount: transaction.amount, currency: transaction.currency, source: { paymentMethod: started.paymentMethod }, description: transaction.description ?? 'Subscription' })
        : { status: 'declined', code: 'card_declined', message: 'No saved payment method' };
  await inTransaction(ctx, (tx) => finishTry(tx, started, result, retryDays));
}

export type NewCardOutcome = { kind: 'paid' } | { kind: 'saved' } | { kind: 'declined'; message: string };

/**
 * The customer enters a new card (portal): what is due (a past-due or unpaid period) is paid
 * with it at once, and it becomes the card later renewals charge. With nothing due, the card is
 * verified (a charge of 0) and saved.
 */
export async function payWithNewCard(ctx: RequestContext, subscriptionId: string, card: CardDetails, retryDays: readonly number[] = configuredRetryDays): Promise<NewCardOutcome> {
  const processor = paymentProcessorFor(ctx.mode);
  if (!processor) throw new AppError('processor_unavailable', 'No payment processor is configured in this environment');
  const started = await inTransaction(ctx, (tx) => startTry(tx, subscriptionId, retryDays, { force: true }));
  const result = await processor.charge({
    idempotencyKey: started?.key ?? `${subscriptionId}:card:${newId('attempt')}`,
    amount: started?.transaction.amount ?? 0n,
    currency: started?.transaction.currency ?? 'USD',
    source: { card, save: true },
    description: started?.transaction.description ?? 'Card verification',
  });
  await inTransaction(ctx, async (tx) => {
    if (started) await finishTry(tx, started, result, retryDays);
    const saved = result.status === 'succeeded' ? result.savedPaymentMethod : undefined;
    if (saved) await db(tx).subscription.update({ where: { id: subscriptionId }, data: { paymentMethodToken: saved.token, paymentMethodBrand: saved.brand, paymentMethodLast4: saved.last4 } });
  });
  if (result.status !== 'succeeded') return { kind: 'declined', message: result.message };
  return started ? { kind: 'paid' } : { kind: 'saved' };
}

/** The job runner's handler; `retryDays` is the dunning schedule (DUNNING_RETRY_DAYS). */
export function renewalJob(retryDays?: readonly number[]): JobHandler {
  return {
    kind: RENEW_JOB,
    // Failures of the machinery (processor unreachable, database restart), not declines: tried again soon.
    retryDelaysMs: [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000],
    run: (ctx, subscriptionId) => collectDue(ctx, subscriptionId, retryDays ?? configuredRetryDays),
  };
}
