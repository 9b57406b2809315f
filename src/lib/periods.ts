/** Billing-period arithmetic in UTC. */

export type Interval = 'day' | 'week' | 'month' | 'year';

/**
 * `start` plus `count` intervals. Months and years clamp to the last day of a shorter month
 * (31 January + 1 month = 28/29 February), as card networks and Stripe do, so a period
 * never skips a month.
 */
export function addInterval(start: Date, interval: Interval, count: number): Date {
  const d = new Date(start.getTime());
  switch (interval) {
    case 'day':
      d.setUTCDate(d.getUTCDate() + count);
      return d;
    case 'week':
      d.setUTCDate(d.getUTCDate() + 7 * count);
      return d;
    case 'month':
    case 'year': {
      const months = interval === 'year' ? 12 * count : count;
      const day = d.getUTCDate();
      d.setUTCDate(1);
      d.setUTCMonth(d.getUTCMonth() + months);
      const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
      d.setUTCDate(Math.min(day, lastDay));
      return d;
    }
  }
}

export const addDays = (start: Date, days: number) => addInterval(start, 'day', days);
