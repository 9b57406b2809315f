import { z } from 'zod';
import { toWireNumber } from '../../lib/money.js';
import { wireAmount } from '../../lib/response-schemas.js';
import type { statsSummary } from './stats.service.js';

/** The client's StatsSummaryEntity: camelCase keys; `periods` only when an interval was asked for. */
export const statsSummaryEntity = z
  .object({
    totals: z.object({
      totalProducts: z.number().int(),
      totalSubscriptions: z.number().int(),
      totalCustomers: z.number().int(),
      totalPayments: z.number().int(),
      activeSubscriptions: z.number().int(),
      totalRevenue: wireAmount,
      totalNetRevenue: wireAmount,
      netMonthlyRecurringRevenue: wireAmount,
      monthlyRecurringRevenue: wireAmount,
    }),
    periods: z
      .array(z.object({ timestamp: z.number().int().meta({ description: 'Start of the bucket, Unix milliseconds' }), grossRevenue: wireAmount, netRevenue: wireAmount }))
      .optional(),
  })
  .meta({ id: 'StatsSummaryEntity' });
export type StatsSummaryEntity = z.infer<typeof statsSummaryEntity>;

/** The client's StatsSummaryEntity: camelCase on the wire, as its model reads it; amounts in minor units. */
export function serializeStatsSummary(s: Awaited<ReturnType<typeof statsSummary>>): StatsSummaryEntity {
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
