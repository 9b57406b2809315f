import type { SubscriptionStatus } from '../../generated/prisma/enums.js';
import type { RequestContext } from '../../context.js';
import { db, lockRow } from '../../db/tenant.js';
import { cancelJob, scheduleJob } from '../../jobs/scheduled-jobs.js';
import { AppError, notFound } from '../../lib/errors.js';
import { RENEW_JOB } from './renewals.js';
import type { CancelSubscriptionInput, SubscriptionPathInput } from './subscriptions.schemas.js';
import { announceSubscription, type SubscriptionWithRelations } from './subscriptions.service.js';

/**
 * Cancel, pause, resume: each locks the subscription, checks that the change is possible from
 * its status (400 `invalid_state` naming it otherwise), writes it and its event in the
 * operation's transaction, and keeps the renewal job in step.
 */

async function lockedSubscription(ctx: RequestContext, id: string) {
  if (!(await lockRow(ctx, 'Subscription', id))) throw notFound('Subscription', id);
  return db(ctx).subscription.findUniqueOrThrow({ where: { id } });
}

function requireStatus(s: { id: string; status: SubscriptionStatus }, allowed: readonly SubscriptionStatus[], action: string): void {
  if (allowed.includes(s.status)) return;
  throw new AppError('invalid_state', `Subscription ${s.id} is ${s.status}; only ${allowed.join(', ')} subscriptions can be ${action}`, [
    { path: ['status'], message: `is ${s.status}; ${action} needs ${allowed.join(' or ')}` },
  ]);
}

export async function cancelSubscription(ctx: RequestContext, input: CancelSubscriptionInput): Promise<SubscriptionWithRelations> {
  const s = await lockedSubscription(ctx, input.id);
  const now = ctx.clock.now();
  if (input.mode === 'scheduled') {
    requireStatus(s, ['active', 'trialing', 'past_due'], 'scheduled to end');
    await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'scheduled_cancel', scheduledAction: input.onExecute } });
    // The renewal job, due at the period's end, does what was scheduled instead of charging.
    if (s.currentPeriodEndDate) await scheduleJob(ctx, RENEW_JOB, s.id, s.currentPeriodEndDate);
    return announceSubscription(ctx, s.id, ['subscription.scheduled_cancel']);
  }
  requireStatus(s, ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'scheduled_cancel'], 'canceled');
  await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'canceled', canceledAt: now, scheduledAction: null, nextTransactionDate: null } });
  await cancelJob(ctx, RENEW_JOB, s.id);
  return announceSubscription(ctx, s.id, ['subscription.canceled']);
}

/** No charges while paused; resuming starts a new period. */
export async function pauseSubscription(ctx: RequestContext, input: SubscriptionPathInput): Promise<SubscriptionWithRelations> {
  const s = await lockedSubscription(ctx, input.id);
  requireStatus(s, ['active', 'trialing', 'past_due'], 'paused');
  await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'paused', nextTransactionDate: null } });
  await cancelJob(ctx, RENEW_JOB, s.id);
  return announceSubscription(ctx, s.id, ['subscription.paused']);
}

/**
 * A paused subscription starts a new period now, charged as a renewal (by the renewal job, at
 * once: no transaction stays open while the card is charged); a scheduled cancellation or pause
 * is withdrawn and the current period kept.
 */
export async function resumeSubscription(ctx: RequestContext, input: SubscriptionPathInput): Promise<SubscriptionWithRelations> {
  const s = await lockedSubscription(ctx, input.id);
  requireStatus(s, ['paused', 'scheduled_cancel'], 'resumed');
  const now = ctx.clock.now();
  if (s.status === 'scheduled_cancel') {
    await db(ctx).subscription.update({ where: { id: s.id }, data: { status: 'active', scheduledAction: null, nextTransactionDate: s.currentPeriodEndDate } });
    return announceSubscription(ctx, s.id, ['subscription.active']);
  }
  // The period that starts now is the first after a new anchor; the renewal job charges it.
  await db(ctx).subscription.update({
    where: { id: s.id },
    data: { status: 'active', billingAnchor: now, billingPeriods: 0, currentPeriodStartDate: now, currentPeriodEndDate: now, nextTransactionDate: now },
  });
  await scheduleJob(ctx, RENEW_JOB, s.id, now);
  return announceSubscription(ctx, s.id, ['subscription.active']);
}
