import type { Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { callRecordEvents, inTransactionNow } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';

/** Event types of the spec's table; the only names an event may carry. */
export const EVENT_TYPES = [
  'checkout.completed',
  'subscription.active',
  'subscription.paid',
  'subscription.canceled',
  'subscription.scheduled_cancel',
  'subscription.past_due',
  'subscription.expired',
  'subscription.trialing',
  'subscription.paused',
  'subscription.update',
  'refund.created',
  'dispute.created',
  'subscription.unpaid',
  'customer_credits.exhausted',
  'credits.granted',
  'credits.consumed',
  'credits.auto_recharged',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The only way to emit an event. It must run in the transaction of the change it describes,
 * so the event and its deliveries are committed if and only if the change is (transactional
 * outbox). `payload` is the resource as the REST API renders it at this moment.
 */
export async function recordEvent(ctx: RequestContext, type: EventType, payload: Prisma.InputJsonObject) {
  const [event] = await recordEvents(ctx, [{ type, payload }]);
  return event!;
}

/** `recordEvent` for many events in a fixed number of statements, in the order given. */
export async function recordEvents(ctx: RequestContext, events: readonly { type: EventType; payload: Prisma.InputJsonObject }[]) {
  if (!inTransactionNow(ctx)) throw new Error('recordEvent must run in the transaction of the change it announces');
  if (!events.length) return [];
  const now = ctx.clock.now();
  // Ids are generated in order (monotonic), so the events keep the order of the changes.
  const rows = events.map((e) => ({ id: newId('event'), type: e.type, payload: e.payload, createdAt: now }));
  // With their fan-out in the same statement: every endpoint subscribed right now gets its
  // delivery, so a committed event can never be missing from an endpoint's queue.
  await callRecordEvents(ctx, now, rows);
  return rows;
}
