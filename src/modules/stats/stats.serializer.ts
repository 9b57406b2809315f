import { toWireNumber } from '../../lib/money.js';
import type { statsSummary } from './stats.service.js';

/** The client's StatsSummaryEntity: camelCase on the wire, as its model reads it; amounts in minor units. */
export function serializeStatsSummary(s: Awaited<ReturnType<typeof statsSummary>>) {
  return {
    totals: {
      totalProducts: s.counts.products,
      totalSubscriptions: s.counts.subscriptions,
      totalCustomers: s.counts.customers,
      totalPayments: s.revenue.payments,
      activeSubscriptions: s.counts.active,
      totalRevenue: toWireNumber(s.revenue.gross),
      totalNetRevenue: toWireNumber(s.revenue.net),
      // No processor fees are known to this service: net MRR equals MRR.
      netMonthlyRecurringRevenue: toWireNumber(s.mrr),
      monthlyRecurringRevenue: toWireNumber(s.mrr),
    },
    ...(s.periods ? { periods: s.periods.map((p) => ({ timestamp: p.start.getTime(), grossRevenue: toWireNumber(p.gross), netRevenue: toWireNumber(p.net) })) } : {}),
  };
}
