import { apiEnum, builder } from '../../graphql/builder.js';
import { execute } from '../../core/operation.js';
import { statsSummaryOp } from './stats.operations.js';
import { STATS_INTERVALS } from './stats.schemas.js';
import type { serializeStatsSummary } from './stats.serializer.js';

type Summary = ReturnType<typeof serializeStatsSummary>;
const IntervalEnum = apiEnum('StatsInterval', STATS_INTERVALS, 'The size of the revenue buckets (UTC; weeks start on Monday)');

const TotalsRef = builder.objectRef<Summary['totals']>('StoreMetricTotals').implement({
  description: 'The store metrics; README "Store metrics" defines each figure. Money in minor units of the currency asked',
  fields: (t) => ({
    totalProducts: t.exposeInt('totalProducts', { description: 'Products not archived' }),
    totalSubscriptions: t.exposeInt('totalSubscriptions', { description: 'Subscriptions created in the range' }),
    totalCustomers: t.exposeInt('totalCustomers', { description: 'Customers created in the range' }),
    totalPayments: t.exposeInt('totalPayments', { description: 'Transactions in the currency that took money in the range' }),
    activeSubscriptions: t.exposeInt('activeSubscriptions', { description: 'Subscriptions paying now (active, or ending at period end)' }),
    totalRevenue: t.field({ type: 'MinorUnits', description: 'Money taken, tax included, less refunds, in the range', resolve: (x) => BigInt(x.totalRevenue) }),
    totalNetRevenue: t.field({ type: 'MinorUnits', description: 'The same without tax', resolve: (x) => BigInt(x.totalNetRevenue) }),
    monthlyRecurringRevenue: t.field({ type: 'MinorUnits', description: 'Paying subscriptions brought to a month, net of discounts and tax', resolve: (x) => BigInt(x.monthlyRecurringRevenue) }),
    netMonthlyRecurringRevenue: t.field({ type: 'MinorUnits', description: 'Equal to monthlyRecurringRevenue: this service knows no processor fees', resolve: (x) => BigInt(x.netMonthlyRecurringRevenue) }),
  }),
});

const PeriodRef = builder.objectRef<NonNullable<Summary['periods']>[number]>('StoreMetricPeriod').implement({
  description: 'Revenue of one bucket (day, week or month, UTC), in minor units of the currency asked',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the bucket', resolve: (p) => new Date(p.timestamp) }),
    grossRevenue: t.field({ type: 'MinorUnits', description: 'Money taken in the bucket, tax included, less refunds', resolve: (p) => BigInt(p.grossRevenue) }),
    netRevenue: t.field({ type: 'MinorUnits', description: 'The same without tax', resolve: (p) => BigInt(p.netRevenue) }),
  }),
});

const SummaryRef = builder.objectRef<Summary>('StoreMetrics').implement({
  description: 'The store’s figures in one currency: totals, and revenue per bucket when asked',
  fields: (t) => ({
    totals: t.field({ type: TotalsRef, description: 'Counts, revenue and MRR', resolve: (s) => s.totals }),
    periods: t.field({ type: [PeriodRef], nullable: true, description: 'With an interval and both dates: revenue per bucket, from the first payment or startDate, whichever is later', resolve: (s) => s.periods ?? null }),
  }),
});

builder.queryField('storeMetrics', (t) =>
  t.field({
    type: SummaryRef,
    description: 'Counts, revenue and MRR of the store in one currency, optionally in a date range and per bucket',
    args: {
      currency: t.arg.string({ required: true, description: 'ISO 4217, uppercase' }),
      startDate: t.arg({ type: 'DateTime', required: false, description: 'Start of the range; default: all time' }),
      endDate: t.arg({ type: 'DateTime', required: false, description: 'Exclusive' }),
      interval: t.arg({ type: IntervalEnum, required: false, description: 'With both dates: revenue per bucket of this size in periods' }),
    },
    resolve: async (_root, args, ctx) =>
      (
        await execute(ctx.core, statsSummaryOp, {
          currency: args.currency,
          ...(args.startDate ? { startDate: args.startDate.getTime() } : {}),
          ...(args.endDate ? { endDate: args.endDate.getTime() } : {}),
          ...(args.interval ? { interval: args.interval } : {}),
        })
      ).body as Summary,
  }),
);
