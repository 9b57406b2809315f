import type { Prisma as P, Transaction } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, insertRows, lockRows, updateRows } from '../../db/tenant.js';
import { scheduleJob, scheduleJobs, type JobHandler } from '../../jobs/scheduled-jobs.js';
import { newId } from '../../lib/ids.js';
import { addInterval, type Interval } from '../../lib/periods.js';
import { priceLines } from '../checkouts/checkout-quote.js';
import { expectDispute } from '../disputes/disputes.service.js';
import { paymentProcessorFor, type CardDetails, type ChargeResult, type PaymentProcessor } from '../payments/processor.js';
import { AppError } from '../../lib/errors.js';
import type { EventType } from '../events/events.service.js';
import { creditFeaturesOf, grantPurchasedCredits } from '../credits/credit-grants.js';
import { announceSubscription, announceSubscriptions } from './subscriptions.service.js';
import { chargeUsage } from '../meters/usage-billing.js';
import { sharePayments } from '../payments/payment-shares.js';

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

/** What a try needs of its invoice transaction. */
type TryTransaction = Pick<Transaction, 'id' | 'amount' | 'taxAmount' | 'currency' | 'description' | 'discountAmount' | 'periodStart' | 'periodEnd' | 'attempt'>;

interface Try {
  subscriptionId: string;
  transaction: TryTransaction;
  paymentMethod: string | null;
  key: string;
}

/** The next period of a subscription: from the current period's end to its anchor plus one more interval. */
export function nextPeriod(
  s: Pick<Sub, 'billingAnchor' | 'billingPeriods' | 'currentPeriodEndDate'> & { product: Pick<Sub['product'], 'recurringInterval' | 'recurringIntervalCount'> },
): { start: Date; end: Date } {
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

type NewTry = TryTransaction & Pick<Transaction, 'customerId' | 'subscriptionId' | 'type' | 'status' | 'taxAmount' | 'taxCountry' | 'createdAt'>;

/** What collecting a subscription calls for now, decided from what is stored. */
type Step =
  | { kind: 'nothing' }
  | { kind: 'later'; at: Date }
  | { kind: 'executeScheduled' }
  | { kind: 'resume'; transaction: Transaction }
  | { kind: 'issue'; data: NewTry; carried: ReturnType<typeof invoiceFor>['carried'] | null };

/**
 * The step for one subscription, given this period's tries (newest first). A try left pending
 * by a worker that died is taken up again with the same key, so the processor answers with
 * that try's outcome instead of charging anew.
 */
function nextStep(s: Sub, tries: Transaction[], now: Date, retryDays: readonly number[], force: boolean): Step {
  if (s.status === 'scheduled_cancel' && s.currentPeriodEndDate) {
    return s.currentPeriodEndDate > now ? { kind: 'later', at: s.currentPeriodEndDate } : { kind: 'executeScheduled' };
  }
  // The customer paying with a new card (portal) collects a past-due or unpaid period at once.
  const forced = force && (s.status === 'past_due' || s.status === 'unpaid');
  if ((!COLLECTING.has(s.status) && !forced) || !s.currentPeriodEndDate) return { kind: 'nothing' };
  const { start, end } = nextPeriod(s);
  const last = tries[0];
  if (last?.status === 'pending') return { kind: 'resume', transaction: last };
  if (last?.status === 'paid') return { kind: 'nothing' };
  // Not due yet (the job ran early, or the period was moved): come back when it is.
  const dueAt = forced ? now : last ? retryAt(last, tries, retryDays) : start;
  if (dueAt === null) return { kind: 'nothing' };
  if (dueAt > now) return { kind: 'later', at: dueAt };
  const common = { id: newId('transaction'), customerId: s.customerId, subscriptionId: s.id, type: 'invoice' as const, status: 'pending' as const, periodStart: start, periodEnd: end, attempt: (last?.attempt ?? 0) + 1, createdAt: now };
  // A period's invoice is fixed when first issued: retries ask for the same amount. Issuing it
  // takes in the prorations waiting for it (a credit larger than it waits for the next one).
  if (last) {
    const { amount, discountAmount, taxAmount, taxCountry, currency, description } = last;
    return { kind: 'issue', data: { ...common, amount, discountAmount, taxAmount, taxCountry, currency, description }, carried: null };
  }
  const lines = invoiceFor(s);
  const pending = s.pendingProrationAmount !== 0n || s.pendingProrationTax !== 0n || s.pendingProrationDiscount !== 0n;
  return {
    kind: 'issue',
    data: {
      ...common,
      amount: lines.amount_due,
      discountAmount: lines.discount_amount,
      taxAmount: lines.tax_amount,
      taxCountry: lines.tax_country,
      currency: lines.currency,
      description: `Subscription to ${s.product.name}`,
    },
    carried: pending ? lines.carried : null,
  };
}

/**
 * Step 1, under the subscriptions' row locks: decide for each whether anything is due and
 * record the tries (pending invoice transactions), in one transaction for the whole batch.
 */
async function startTries(ctx: RequestContext, subscriptionIds: readonly string[], retryDays: readonly number[], options: { force?: boolean } = {}): Promise<Try[]> {
  const locked = await lockRows(ctx, 'Subscription', subscriptionIds);
  if (!locked.length) return [];
  const subs = await db(ctx).subscription.findMany({ where: { id: { in: locked } }, include: { product: true, discount: true, items: true } });
  const periods = new Map(subs.filter((s) => s.currentPeriodEndDate).map((s) => [s.id, nextPeriod(s)]));
  const starts = [...new Set([...periods.values()].map((p) => p.start.getTime()))].map((t) => new Date(t));
  const tries = periods.size
    ? await db(ctx).transaction.findMany({ where: { subscriptionId: { in: [...periods.keys()] }, periodStart: { in: starts }, attempt: { not: null } }, orderBy: { attempt: 'desc' } })
    : [];
  const now = ctx.clock.now();
  const later: { subjectId: string; dueAt: Date }[] = [];
  const issued: NewTry[] = [];
  const out: Try[] = [];
  const bySubscription = new Map(subs.map((s) => [s.id, s]));
  const tryOf = (transaction: TryTransaction & Pick<Transaction, 'subscriptionId'>): Try => {
    const s = bySubscription.get(transaction.subscriptionId!)!;
    return { subscriptionId: s.id, transaction, paymentMethod: s.paymentMethodToken, key: chargeKeyOf(s.id, transaction.periodStart!, transaction.attempt!) };
  };
  for (const s of subs) {
    const start = periods.get(s.id)?.start.getTime();
    const step = nextStep(s, tries.filter((t) => t.subscriptionId === s.id && t.periodStart?.getTime() === start), now, retryDays, options.force === true);
    switch (step.kind) {
      case 'later':
        later.push({ subjectId: s.id, dueAt: step.at });
        break;
      case 'executeScheduled':
        await executeScheduled(ctx, s);
        break;
      case 'resume':
        out.push(tryOf(step.transaction));
        break;
      case 'issue':
        issued.push(step.data);
        if (step.carried) {
          const { amount, tax, discount } = step.carried;
          await db(ctx).subscription.update({ where: { id: s.id }, data: { pendingProrationAmount: amount, pendingProrationTax: tax, pendingProrationDiscount: discount } });
        }
        break;
    }
  }
  await addUsage(ctx, issued.filter((t) => t.attempt === 1), bySubscription);
  await scheduleJobs(ctx, RENEW_JOB, later);
  await insertRows(ctx, 'Transaction', issued);
  for (const t of issued) out.push(tryOf(t));
  return out;
}

/**
 * The usage of the ending period goes on the period's first invoice (retries ask for the same
 * amount), taxed as the product is; prepaid usage is settled from credits on the way.
 */
async function addUsage(ctx: RequestContext, firsts: NewTry[], subs: ReadonlyMap<string, Sub>): Promise<void> {
  if (!firsts.length) return;
  const usage = await chargeUsage(ctx, firsts.map((t) => subs.get(t.subscriptionId!)!));
  for (const t of firsts) {
    const u = usage.get(t.subscriptionId!);
    if (!u) continue;
    const s = subs.get(t.subscriptionId!)!;
    if (u.amount > 0n) {
      const lines = priceLines({ product: s.product, unitPrice: u.amount, units: 1, discount: null, country: s.taxCountry, taxId: s.taxId });
      t.amount += lines.amount_due;
      t.taxAmount += lines.tax_amount;
    }
    t.description = `${t.description ?? ''}; usage: ${u.lines.join(', ')}`;
  }
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

type Outcome = { t: Try; result: ChargeResult };
type Settled<S> = Outcome & { result: Extract<ChargeResult, { status: S }> };

/**
 * Step 3, under the row locks again: record the outcome of each try, once. Paid: the period
 * moves on, the subscription is active, and the next renewal is scheduled. Declined: past due,
 * with a retry by the schedule, or unpaid when the schedule is spent. The paid ones, the
 * common case, are written with one statement per table whatever their number.
 */
async function finishTries(ctx: RequestContext, outcomes: readonly Outcome[], retryDays: readonly number[]): Promise<void> {
  await lockRows(ctx, 'Subscription', outcomes.map((o) => o.t.subscriptionId));
  const paid = outcomes.filter((o): o is Settled<'succeeded'> => o.result.status === 'succeeded');
  const declined = outcomes.filter((o): o is Settled<'declined'> => o.result.status === 'declined');
  // Only tries still pending: another worker may have recorded some outcomes already.
  const settle = async <S>(list: Settled<S>[], data: (o: Settled<S>) => Record<string, unknown>) => {
    const written = await updateRows(ctx, 'Transaction', list.map((o) => ({ id: o.t.transaction.id, ...data(o) })), { onlyIf: { status: 'pending' } });
    const ids = new Set(written.map((r) => r.id));
    return list.filter((o) => ids.has(o.t.transaction.id));
  };
  const nowPaid = await settle(paid, (o) => ({ status: 'paid', amountPaid: o.t.transaction.amount, processorReference: o.result.reference }));
  const nowDeclined = await settle(declined, (o) => ({ status: 'declined', declineCode: o.result.code }));
  if (!nowPaid.length && !nowDeclined.length) return;
  const subs = await db(ctx).subscription.findMany({
    where: { id: { in: [...nowPaid, ...nowDeclined].map((o) => o.t.subscriptionId) } },
    select: { id: true, status: true, discountId: true, discountPeriodsLeft: true, billingPeriods: true, customerId: true, productId: true, affiliateId: true },
  });
  const byId = new Map(subs.map((s) => [s.id, s]));
  await sharePayments(
    ctx,
    nowPaid.map(({ t }) => {
      const s = byId.get(t.subscriptionId)!;
      return { transactionId: t.transaction.id, productId: s.productId, affiliateId: s.affiliateId, net: t.transaction.amount - t.transaction.taxAmount, currency: t.transaction.currency };
    }),
  );
  const now = ctx.clock.now();
  await updateRows(
    ctx,
    'Subscription',
    nowPaid.map(({ t }) => {
      const s = byId.get(t.subscriptionId)!;
      const periodEnd = t.transaction.periodEnd!;
      const discounted = s.discountId !== null && s.discountPeriodsLeft !== null && t.transaction.discountAmount > 0n;
      return {
        id: s.id,
        status: 'active',
        currentPeriodStartDate: t.transaction.periodStart,
        currentPeriodEndDate: periodEnd,
        nextTransactionDate: periodEnd,
        billingPeriods: s.billingPeriods + 1,
        lastTransactionId: t.transaction.id,
        lastTransactionDate: now,
        discountPeriodsLeft: discounted ? s.discountPeriodsLeft! - 1 : s.discountPeriodsLeft,
      };
    }),
  );
  await scheduleJobs(ctx, RENEW_JOB, nowPaid.map(({ t }) => ({ subjectId: t.subscriptionId, dueAt: t.transaction.periodEnd! })));
  for (const { t, result } of nowPaid) await expectDispute(ctx, t.transaction.id, result);
  // Each paid period grants the product's credits, in this transaction (keyed by the invoice).
  const credits = await creditFeaturesOf(ctx, nowPaid.map(({ t }) => byId.get(t.subscriptionId)!.productId));
  for (const { t } of nowPaid) {
    const s = byId.get(t.subscriptionId)!;
    const features = credits.get(s.productId);
    if (features) await grantPurchasedCredits(ctx, s.customerId, t.transaction.id, features);
  }
  // From a trial or from past due, the subscription is active again: say so before it is paid.
  const announcements: { id: string; types: EventType[] }[] = nowPaid.map(({ t }) => ({
    id: t.subscriptionId,
    types: byId.get(t.subscriptionId)!.status === 'active' ? ['subscription.paid'] : ['subscription.active', 'subscription.paid'],
  }));
  for (const { t } of nowDeclined) {
    const types = await afterDecline(ctx, t, byId.get(t.subscriptionId)!.status, retryDays);
    if (types.length) announcements.push({ id: t.subscriptionId, types });
  }
  await announceSubscriptions(ctx, announcements);
}

/** A declined try: past due with a retry by the schedule, or unpaid when it is spent. Returns the events to announce. */
async function afterDecline(ctx: RequestContext, t: Try, status: Sub['status'], retryDays: readonly number[]): Promise<EventType[]> {
  const tries = await db(ctx).transaction.findMany({ where: { subscriptionId: t.subscriptionId, periodStart: t.transaction.periodStart, attempt: { not: null } }, orderBy: { attempt: 'desc' } });
  const next = retryAt(t.transaction, tries, retryDays);
  if (next === null) {
    await db(ctx).subscription.update({ where: { id: t.subscriptionId }, data: { status: 'unpaid', nextTransactionDate: null } });
    return ['subscription.unpaid'];
  }
  await db(ctx).subscription.update({ where: { id: t.subscriptionId }, data: { status: 'past_due', nextTransactionDate: next } });
  await scheduleJob(ctx, RENEW_JOB, t.subscriptionId, next);
  // The first failure of a period: it ended without payment.
  return status === 'past_due' ? [] : ['subscription.past_due', 'subscription.expired'];
}

async function chargeTry(processor: PaymentProcessor, t: Try): Promise<ChargeResult> {
  const { transaction } = t;
  // An invoice of nothing (a 100% discount) is paid without calling the processor.
  if (transaction.amount === 0n) return { status: 'succeeded', reference: `free_${transaction.id}` };
  if (!t.paymentMethod) return { status: 'declined', code: 'card_declined', message: 'No saved payment method' };
  return processor.charge({ idempotencyKey: t.key, amount: transaction.amount, currency: transaction.currency, source: { paymentMethod: t.paymentMethod }, description: transaction.description ?? 'Subscription' });
}

/**
 * Collects what is due on subscriptions of one store environment: renewals at their period's
 * end, trials' first periods, dunning retries. Three steps so that no transaction is open
 * during the charges: record the tries (one transaction), charge them (in parallel), record
 * the outcomes (one transaction). Resolves to the error of each subscription whose charge
 * could not be made (its try stays pending and is taken up again with the same key).
 */
export async function collectDueMany(ctx: RequestContext, subscriptionIds: readonly string[], retryDays: readonly number[] = configuredRetryDays): Promise<Map<string, unknown>> {
  const processor = paymentProcessorFor(ctx.mode);
  if (!processor) throw new Error(`no payment processor in ${ctx.mode}; renewals wait`);
  const started = await inTransaction(ctx, (tx) => startTries(tx, subscriptionIds, retryDays));
  const errors = new Map<string, unknown>();
  const outcomes: Outcome[] = [];
  await Promise.all(
    started.map(async (t) => {
      try {
        outcomes.push({ t, result: await chargeTry(processor, t) });
      } catch (err) {
        errors.set(t.subscriptionId, err);
      }
    }),
  );
  if (outcomes.length) await inTransaction(ctx, (tx) => finishTries(tx, outcomes, retryDays));
  return errors;
}

/** `collectDueMany` for one subscription; throws when its charge could not be made. */
export async function collectDue(ctx: RequestContext, subscriptionId: string, retryDays: readonly number[] = configuredRetryDays): Promise<void> {
  const errors = await collectDueMany(ctx, [subscriptionId], retryDays);
  if (errors.size) throw errors.get(subscriptionId);
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
  const [started] = await inTransaction(ctx, (tx) => startTries(tx, [subscriptionId], retryDays, { force: true }));
  const result = await processor.charge({
    idempotencyKey: started?.key ?? `${subscriptionId}:card:${newId('attempt')}`,
    amount: started?.transaction.amount ?? 0n,
    currency: started?.transaction.currency ?? 'USD',
    source: { card, save: true },
    description: started?.transaction.description ?? 'Card verification',
  });
  await inTransaction(ctx, async (tx) => {
    if (started) await finishTries(tx, [{ t: started, result }], retryDays);
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
    runMany: (ctx, subscriptionIds) => collectDueMany(ctx, subscriptionIds, retryDays ?? configuredRetryDays),
  };
}
