/**
 * The store metrics, each figure family one statement computed by PostgreSQL (no rows are
 * pulled into JavaScript to sum). Definitions: README "Store metrics".
 */
import { Prisma } from '../generated/prisma/client.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

export interface MetricsRange {
  from: Date | null;
  to: Date | null;
}

/** Transactions that took money: what payments and revenue count. */
const COLLECTED = Prisma.sql`('paid', 'partialRefund', 'refunded', 'chargedBack')`;
/** Subscriptions that pay now: what active subscriptions and MRR count. */
const PAYING = Prisma.sql`('active', 'scheduled_cancel')`;

const within = (column: Prisma.Sql, r: MetricsRange) =>
  Prisma.sql`${r.from ? Prisma.sql`${column} >= ${r.from}` : Prisma.sql`true`} AND ${r.to ? Prisma.sql`${column} < ${r.to}` : Prisma.sql`true`}`;

export async function countMetrics(ctx: TenantContext, r: MetricsRange) {
  const [row] = await sqlClient(ctx).$queryRaw<{ products: bigint; subscriptions: bigint; customers: bigint; active: bigint }[]>`
    SELECT (SELECT count(*) FROM "Product" p WHERE ${tenantCondition(ctx, 'p')} AND p."status" = 'active') AS products,
           (SELECT count(*) FROM "Subscription" s WHERE ${tenantCondition(ctx, 's')} AND ${within(Prisma.sql`s."createdAt"`, r)}) AS subscriptions,
           (SELECT count(*) FROM "Customer" c WHERE ${tenantCondition(ctx, 'c')} AND ${within(Prisma.sql`c."createdAt"`, r)}) AS customers,
           (SELECT count(*) FROM "Subscription" s WHERE ${tenantCondition(ctx, 's')} AND CAST(s."status" AS text) IN ${PAYING}) AS active`;
  return { products: Number(row!.products), subscriptions: Number(row!.subscriptions), customers: Number(row!.customers), active: Number(row!.active) };
}

/** Money in (payments) and back out (refunds, when they succeed) in one currency, as signed rows. */
const moneyMoves = (ctx: TenantContext, currency: string, r: MetricsRange) => Prisma.sql`
  SELECT t."createdAt" AS at, t."amountPaid" AS gross, t."amountPaid" - t."taxAmount" AS net, 1 AS payment
    FROM "Transaction" t
   WHERE ${tenantCondition(ctx, 't')} AND t."currency" = ${currency} AND t."amountPaid" > 0 AND CAST(t."status" AS text) IN ${COLLECTED} AND ${within(Prisma.sql`t."createdAt"`, r)}
  UNION ALL
  SELECT f."createdAt", -f."amount", -(f."amount" - f."taxAmount"), 0
    FROM "Refund" f
   WHERE ${tenantCondition(ctx, 'f')} AND f."currency" = ${currency} AND CAST(f."status" AS text) = 'succeeded' AND ${within(Prisma.sql`f."createdAt"`, r)}`;

export async function revenueMetrics(ctx: TenantContext, currency: string, r: MetricsRange) {
  const [row] = await sqlClient(ctx).$queryRaw<{ payments: bigint; gross: string; net: string }[]>`
    SELECT count(*) FILTER (WHERE m.payment = 1) AS payments, coalesce(sum(m.gross), 0)::text AS gross, coalesce(sum(m.net), 0)::text AS net
      FROM (${moneyMoves(ctx, currency, r)}) m`;
  return { payments: Number(row!.payments), gross: BigInt(row!.gross), net: BigInt(row!.net) };
}

/**
 * Revenue per bucket of `interval` (UTC; weeks start on Monday), zero-filled from the later of
 * `from` and the store's first payment in the currency, to `to`.
 */
export async function revenuePeriods(ctx: TenantContext, currency: string, r: { from: Date; to: Date }, interval: 'day' | 'week' | 'month') {
  const unit = Prisma.raw(`'${interval}'`);
  const rows = await sqlClient(ctx).$queryRaw<{ bucket: Date; gross: string; net: string }[]>`
    WITH first AS (
      SELECT min(t."createdAt") AS at FROM "Transaction" t
       WHERE ${tenantCondition(ctx, 't')} AND t."currency" = ${currency} AND t."amountPaid" > 0 AND CAST(t."status" AS text) IN ${COLLECTED}
    ), buckets AS (
      SELECT generate_series(date_trunc(${unit}, (greatest(CAST(${r.from} AS timestamptz), (SELECT at FROM first))) AT TIME ZONE 'UTC'),
                             date_trunc(${unit}, (CAST(${r.to} AS timestamptz) - interval '1 millisecond') AT TIME ZONE 'UTC'),
                             CAST('1 ' || ${interval} AS interval)) AS bucket
       WHERE (SELECT at FROM first) IS NOT NULL AND (SELECT at FROM first) < ${r.to}
    ), moves AS (
      SELECT date_trunc(${unit}, m.at AT TIME ZONE 'UTC') AS bucket, m.gross, m.net FROM (${moneyMoves(ctx, currency, r)}) m
    )
    SELECT b.bucket AT TIME ZONE 'UTC' AS bucket, coalesce(sum(m.gross), 0)::text AS gross, coalesce(sum(m.net), 0)::text AS net
      FROM buckets b LEFT JOIN moves m ON m.bucket = b.bucket
     GROUP BY b.bucket ORDER BY b.bucket`;
  return rows.map((x) => ({ start: x.bucket, gross: BigInt(x.gross), net: BigInt(x.net) }));
}

/**
 * Monthly recurring revenue in one currency: for every paying subscription, its items at their
 * prices, less the discount while it still applies, without tax (a tax-inclusive price keeps
 * the share of its latest collected invoice that was not tax), brought to a month (a year is a
 * twelfth, a week 52/12, a day 365/12, each over its interval count); summed exactly, rounded
 * once, half away from zero.
 */
export async function monthlyRecurringRevenue(ctx: TenantContext, currency: string): Promise<bigint> {
  const [row] = await sqlClient(ctx).$queryRaw<{ mrr: string }[]>`
    SELECT coalesce(round(sum(x.monthly)), 0)::text AS mrr FROM (
      SELECT (it.base - CASE
                 WHEN d."id" IS NULL OR NOT (d."duration" = 'forever' OR (d."duration" = 'repeating' AND coalesce(s."discountPeriodsLeft", 1) > 0)) THEN 0
                 WHEN d."type" = 'percentage' THEN it.base * coalesce(d."percentage", 0) / 100.0
                 ELSE least(coalesce(d."amount", 0), it.base) END)
             * CASE WHEN CAST(p."taxMode" AS text) = 'inclusive' AND last.amount > 0 THEN (last.amount - last."taxAmount")::numeric / last.amount ELSE 1 END
             * CASE p."recurringInterval" WHEN 'year' THEN 1 / 12.0 WHEN 'week' THEN 52 / 12.0 WHEN 'day' THEN 365 / 12.0 ELSE 1 END
             / coalesce(nullif(p."recurringIntervalCount", 0), 1) AS monthly
        FROM "Subscription" s
        JOIN "Product" p ON p."id" = s."productId"
        JOIN LATERAL (SELECT coalesce(sum(coalesce(i."unitPrice", p."price") * i."units"), p."price")::numeric AS base FROM "SubscriptionItem" i WHERE i."subscriptionId" = s."id") it ON true
        LEFT JOIN "Discount" d ON d."id" = s."discountId"
        LEFT JOIN LATERAL (SELECT t."amount", t."taxAmount" FROM "Transaction" t
                            WHERE t."subscriptionId" = s."id" AND t."amount" > 0 AND CAST(t."status" AS text) IN ${COLLECTED}
                            ORDER BY t."createdAt" DESC LIMIT 1) last ON true
       WHERE ${tenantCondition(ctx, 's')} AND CAST(s."status" AS text) IN ${PAYING} AND p."currency" = ${currency}) x`;
  return BigInt(row!.mrr);
}
