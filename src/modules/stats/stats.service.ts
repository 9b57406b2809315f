import type { RequestContext } from '../../context.js';
import { countMetrics, monthlyRecurringRevenue, revenueMetrics, revenuePeriods } from '../../db/stats.js';
import type { StatsSummaryInput } from './stats.schemas.js';

/**
 * The store's metrics in one currency (README "Store metrics" defines each figure): counts,
 * revenue and MRR, and with an interval the revenue per bucket. One statement per family.
 */
export async function statsSummary(ctx: RequestContext, input: StatsSummaryInput) {
  const range = { from: input.startDate ?? null, to: input.endDate ?? null };
  const [counts, revenue, mrr, periods] = await Promise.all([
    countMetrics(ctx, range),
    revenueMetrics(ctx, input.currency, range),
    monthlyRecurringRevenue(ctx, input.currency),
    input.interval && input.startDate && input.endDate ? revenuePeriods(ctx, input.currency, { from: input.startDate, to: input.endDate }, input.interval) : Promise.resolve(null),
  ]);
  return { counts, revenue, mrr, periods };
}
