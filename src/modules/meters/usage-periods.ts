import type { RequestContext } from '../../context.js';
import { readSubscriptionPeriods, type SubscriptionPeriodRow } from '../../db/usage.js';
import { addInterval, type Interval } from '../../lib/periods.js';
import { nextPeriod } from '../subscriptions/renewals.js';

/**
 * The billing period usage is counted in. A customer with a live subscription to a product
 * that prices the meter counts in that subscription's periods (the renewal invoice bills
 * them); anyone else in UTC calendar months. A period is final, and late events no longer
 * change it, once its subscription has renewed past it, or (calendar months) once it ended more
 * than the late-event window ago.
 */
export interface MeteringPeriod {
  start: Date;
  end: Date;
  final: boolean;
}

/** How long after a calendar month ends its events may still arrive and count. */
export const LATE_EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;

export function calendarMonth(at: Date, now: Date): MeteringPeriod {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { start, end, final: end.getTime() + LATE_EVENT_WINDOW_MS < now.getTime() };
}

type SubscriptionPeriods = { start: Date; end: Date; next: { start: Date; end: Date }; anchor: Date; interval: Interval; count: number };

/** A closed period of the subscription, before its current one: anchor + k intervals, cut at the current start. */
function pastPeriod(s: SubscriptionPeriods, at: Date): MeteringPeriod {
  let k = 0;
  while (addInterval(s.anchor, s.interval, s.count * (k + 1)) <= at) k++;
  const end = addInterval(s.anchor, s.interval, s.count * (k + 1));
  return { start: addInterval(s.anchor, s.interval, s.count * k), end: end < s.start ? end : s.start, final: true };
}

/**
 * The periods of (customer, meter) pairs from the live subscriptions pricing the meters
 * (newest first): a function answering the period of a pair at an instant.
 */
export function periodsFrom(subscriptions: readonly SubscriptionPeriodRow[], now: Date) {
  const byPair = new Map<string, SubscriptionPeriods>();
  for (const s of subscriptions) {
    const interval = (s.interval ?? 'month') as Interval;
    const count = s.intervalCount ?? 1;
    for (const meterId of s.meterIds) {
      const key = `${s.customerId}\u0000${meterId}`;
      // The newest subscription wins when a customer holds two pricing the same meter.
      if (!byPair.has(key)) {
        byPair.set(key, {
          start: s.start,
          end: s.end,
          next: nextPeriod({ billingAnchor: s.anchor, billingPeriods: s.billingPeriods, currentPeriodEndDate: s.end, product: { recurringInterval: interval, recurringIntervalCount: count } }),
          anchor: s.anchor ?? s.start,
          interval,
          count,
        });
      }
    }
  }
  // A batch's events mostly share a month: one period object per month, not per event.
  const months = new Map<number, MeteringPeriod>();
  const monthOf = (at: Date) => {
    const key = at.getUTCFullYear() * 12 + at.getUTCMonth();
    let period = months.get(key);
    if (!period) months.set(key, (period = calendarMonth(at, now)));
    return period;
  };
  return (customerId: string, meterId: string, at: Date): MeteringPeriod => {
    const s = byPair.get(`${customerId}\u0000${meterId}`);
    if (!s) return monthOf(at);
    if (at < s.start) return at < s.anchor ? monthOf(at) : pastPeriod(s, at);
    if (at < s.end) return { start: s.start, end: s.end, final: false };
    if (at < s.next.end) return { ...s.next, final: false };
    return monthOf(at);
  };
}

/** The periods of the given customers for the given meters, read in one statement. */
export async function meteringPeriods(ctx: RequestContext, customerIds: readonly string[], meterIds: readonly string[]) {
  return periodsFrom(await readSubscriptionPeriods(ctx, [...new Set(customerIds)], [...new Set(meterIds)]), ctx.clock.now());
}
