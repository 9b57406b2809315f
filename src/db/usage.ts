/**
 * The usage-metering statements: aggregation happens in the database, over the stored
 * `properties` (read by the SQL functions of migration `usage_metering_functions`). Each
 * statement filters and stamps the caller's tenant itself.
 */
import { Prisma } from '../generated/prisma/client.js';
import type { FilterClause, MeterFilter } from '../modules/meters/meter-filter.js';
import { sqlClient, type TenantContext } from './tenant.js';

export type Aggregation = 'count' | 'sum' | 'average' | 'min' | 'max' | 'unique';

/** What a meter is, for the statements here. */
export interface MeterDefinition {
  eventName: string;
  aggregation: Aggregation;
  property: string | null;
  filter: MeterFilter;
}

const COMPARISON: Record<'gt' | 'gte' | 'lt' | 'lte', string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function clauseSql(c: FilterClause, properties: Prisma.Sql): Prisma.Sql {
  const raw = Prisma.sql`(${properties} -> CAST(${c.property} AS text))`;
  const v = c.value;
  if (c.operator === 'contains' || c.operator === 'not_contains') {
    const hit = Prisma.sql`coalesce(strpos(usage_text(${raw}), CAST(${String(v)} AS text)) > 0, false)`;
    return c.operator === 'contains' ? hit : Prisma.sql`NOT ${hit}`;
  }
  const side = typeof v === 'number' ? Prisma.sql`usage_number(${raw})` : typeof v === 'boolean' ? Prisma.sql`usage_bool(${raw})` : Prisma.sql`usage_text(${raw})`;
  const value = typeof v === 'number' ? Prisma.sql`CAST(${String(v)} AS numeric)` : typeof v === 'boolean' ? Prisma.sql`CAST(${v} AS boolean)` : Prisma.sql`CAST(${v} AS text)`;
  if (c.operator === 'equals') return Prisma.sql`coalesce(${side} = ${value}, false)`;
  if (c.operator === 'not_equals') return Prisma.sql`(${side} IS DISTINCT FROM ${value})`;
  // Strings order by code point, whatever the database's collation.
  const collate = typeof v === 'string' ? Prisma.raw(' COLLATE "C"') : Prisma.empty;
  return Prisma.sql`coalesce(${side}${collate} ${Prisma.raw(COMPARISON[c.operator])} ${value}${collate}, false)`;
}

/** The filter as a SQL condition on the jsonb `properties` expression given. */
export function filterSql(filter: MeterFilter, properties: Prisma.Sql): Prisma.Sql {
  if (!filter.clauses.length) return Prisma.sql`true`;
  return Prisma.sql`(${Prisma.join(filter.clauses.map((c) => clauseSql(c, properties)), filter.conjunction === 'and' ? ' AND ' : ' OR ')})`;
}

/** The aggregation property as a number (sum, average, min, max) and as text (unique). */
const numberOf = (m: MeterDefinition, properties: Prisma.Sql) => (m.property ? Prisma.sql`usage_number(${properties} -> CAST(${m.property} AS text))` : Prisma.sql`CAST(NULL AS numeric)`);
const textOf = (m: MeterDefinition, properties: Prisma.Sql) => (m.property ? Prisma.sql`usage_text(${properties} -> CAST(${m.property} AS text))` : Prisma.sql`CAST(NULL AS text)`);

/**
 * The units of an aggregation from its parts, as exact decimal text without trailing zeros
 * (`"12"`, `"2.5"`); an average is rounded to 12 decimal places. No values: `"0"`.
 */
function unitsSql(aggregation: Aggregation, p: { events: Prisma.Sql; values: Prisma.Sql; sum: Prisma.Sql; min: Prisma.Sql; max: Prisma.Sql; uniques: Prisma.Sql }): Prisma.Sql {
  const n = (x: Prisma.Sql) => Prisma.sql`trim_scale(coalesce(${x}, 0))::text`;
  switch (aggregation) {
    case 'count':
      return Prisma.sql`(${p.events})::text`;
    case 'sum':
      return n(p.sum);
    case 'average':
      return n(Prisma.sql`round(${p.sum} / nullif(${p.values}, 0), 12)`);
    case 'min':
      return n(p.min);
    case 'max':
      return n(p.max);
    case 'unique':
      return Prisma.sql`(${p.uniques})::text`;
  }
}

export interface Aggregate {
  events: number;
  /** Events whose aggregation property was not a number (skipped by sum, average, min and max). */
  skipped: number;
  customers: number;
  units: string;
}

/**
 * The meter's aggregate over its raw events in [from, to), optionally of one customer: the
 * replay behind `consumed?at=` and the renewal invoice.
 */
export async function aggregateEvents(ctx: TenantContext, m: MeterDefinition, range: { from: Date; to: Date; customerId?: string }): Promise<Aggregate> {
  const props = Prisma.sql`e."properties"`;
  const [row] = await sqlClient(ctx).$queryRaw<{ events: bigint; skipped: bigint; customers: bigint; units: string }[]>`
    SELECT count(*) AS events, count(*) - count(v) AS skipped, count(DISTINCT customer) AS customers,
           ${unitsSql(m.aggregation, { events: Prisma.sql`count(*)`, values: Prisma.sql`count(v)`, sum: Prisma.sql`sum(v)`, min: Prisma.sql`min(v)`, max: Prisma.sql`max(v)`, uniques: Prisma.sql`count(DISTINCT u)` })} AS units
      FROM (SELECT ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u, e."customerId" AS customer
              FROM "UsageEvent" e
             WHERE e."storeId" = ${ctx.storeId} AND e."mode" = CAST(${ctx.mode} AS "Mode") AND e."eventName" = ${m.eventName}
               ${range.customerId ? Prisma.sql`AND e."customerId" = ${range.customerId}` : Prisma.empty}
               AND e."timestamp" >= ${range.from} AND e."timestamp" < ${range.to} AND ${filterSql(m.filter, props)}) matched`;
  return { events: Number(row!.events), skipped: m.aggregation === 'count' || m.aggregation === 'unique' ? 0 : Number(row!.skipped), customers: Number(row!.customers), units: row!.units };
}

export interface DailyPreview {
  totals: Aggregate;
  days: { day: string; events: number; units: string }[];
  /** True when the scan cap cut the window: the oldest day may be incomplete. */
  capped: boolean;
}

/**
 * The meter preview: the newest `cap` matching events of [from, to) (the scan runs newest
 * first, so recent days stay complete), aggregated in total and per UTC day.
 */
export async function previewEvents(ctx: TenantContext, m: MeterDefinition, range: { from: Date; to: Date }, cap: number): Promise<DailyPreview> {
  const props = Prisma.sql`e."properties"`;
  const parts = (alias: string) => ({
    events: Prisma.sql`count(*)`,
    values: Prisma.sql`count(${Prisma.raw(alias)}.v)`,
    sum: Prisma.sql`sum(${Prisma.raw(alias)}.v)`,
    min: Prisma.sql`min(${Prisma.raw(alias)}.v)`,
    max: Prisma.sql`max(${Prisma.raw(alias)}.v)`,
    uniques: Prisma.sql`count(DISTINCT ${Prisma.raw(alias)}.u)`,
  });
  const rows = await sqlClient(ctx).$queryRaw<{ day: string | null; events: bigint; skipped: bigint; customers: bigint; units: string; capped: boolean | null }[]>`
    WITH scanned AS (
      SELECT ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u, e."customerId" AS customer, to_char(e."timestamp" AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day
        FROM "UsageEvent" e
       WHERE e."storeId" = ${ctx.storeId} AND e."mode" = CAST(${ctx.mode} AS "Mode") AND e."eventName" = ${m.eventName}
         AND e."timestamp" >= ${range.from} AND e."timestamp" < ${range.to} AND ${filterSql(m.filter, props)}
       ORDER BY e."timestamp" DESC
       LIMIT ${cap + 1}
    ), kept AS (SELECT * FROM scanned LIMIT ${cap})
    SELECT NULL AS day, count(*) AS events, count(*) - count(k.v) AS skipped, count(DISTINCT k.customer) AS customers, ${unitsSql(m.aggregation, parts('k'))} AS units, (SELECT count(*) FROM scanned) > ${cap} AS capped FROM kept k
    UNION ALL
    SELECT k.day, count(*), count(*) - count(k.v), count(DISTINCT k.customer), ${unitsSql(m.aggregation, parts('k'))}, NULL FROM kept k GROUP BY k.day`;
  const total = rows.find((r) => r.day === null)!;
  const numeric = m.aggregation !== 'count' && m.aggregation !== 'unique';
  return {
    totals: { events: Number(total.events), skipped: numeric ? Number(total.skipped) : 0, customers: Number(total.customers), units: total.units },
    days: rows.filter((r) => r.day !== null).map((r) => ({ day: r.day!, events: Number(r.events), units: r.units })),
    capped: total.capped === true,
  };
}

/** A (customer, meter) period's row of the consumed-units projection, as units; null when nothing was folded in yet. */
export async function readProjection(ctx: TenantContext, m: MeterDefinition & { id: string }, customerId: string, periodStart: Date): Promise<{ units: string; updatedAt: Date } | null> {
  const [row] = await sqlClient(ctx).$queryRaw<{ units: string; updated_at: Date }[]>`
    SELECT ${unitsSql(m.aggregation, { events: Prisma.sql`u."eventCount"`, values: Prisma.sql`u."valueCount"`, sum: Prisma.sql`u."sum"`, min: Prisma.sql`u."min"`, max: Prisma.sql`u."max"`, uniques: Prisma.sql`u."uniqueCount"` })} AS units,
           u."updatedAt" AS updated_at
      FROM "MeterUsage" u
     WHERE u."meterId" = ${m.id} AND u."customerId" = ${customerId} AND u."periodStart" = ${periodStart}
       AND u."storeId" = ${ctx.storeId} AND u."mode" = CAST(${ctx.mode} AS "Mode")`;
  return row ? { units: row.units, updatedAt: row.updated_at } : null;
}

export interface NewUsageEvent {
  id: string;
  key: string;
  eventName: string;
  customerId: string;
  properties: Record<string, unknown>;
  timestamp: Date;
}

/** An event's share of a meter: the period it counts in. */
export interface FoldTarget {
  key: string;
  meterId: string;
  customerId: string;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * Stores the events that are new (a known `event_id` records nothing: deduplicated forever,
 * also against a concurrent batch, which waits on the unique index) and, in the same
 * statement, folds each new one into the projection rows of its targets that its meter's
 * filter lets through. Rows are written in key order, so two batches never deadlock. Returns
 * how many events were new.
 */
export async function storeAndFold(ctx: TenantContext, now: Date, events: readonly NewUsageEvent[], targets: readonly FoldTarget[], meters: ReadonlyMap<string, MeterDefinition>): Promise<number> {
  if (!events.length) return 0;
  const props = Prisma.sql`ins."properties"`;
  const byMeter = [...new Set(targets.map((t) => t.meterId))].map((id) => [id, meters.get(id)!] as const);
  const caseOf = (of: (m: MeterDefinition) => Prisma.Sql, type: 'numeric' | 'text' | 'boolean') =>
    byMeter.length
      ? Prisma.sql`CASE t.meter ${Prisma.join(byMeter.map(([id, m]) => Prisma.sql`WHEN ${id} THEN ${of(m)}`), ' ')} END`
      : Prisma.sql`CAST(NULL AS ${Prisma.raw(type)})`;
  const uniqueMeters = byMeter.filter(([, m]) => m.aggregation === 'unique').map(([id]) => id);
  const sorted = [...events].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const [row] = await sqlClient(ctx).$queryRaw<{ inserted: bigint }[]>`
    WITH ins AS (
      INSERT INTO "UsageEvent" ("id", "storeId", "mode", "eventName", "customerId", "properties", "timestamp", "idempotencyKey", "createdAt")
      SELECT e.id, ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), e.name, e.customer, e.properties, e.at, e.key, ${now}
        FROM unnest(CAST(${sorted.map((e) => e.id)} AS text[]), CAST(${sorted.map((e) => e.eventName)} AS text[]), CAST(${sorted.map((e) => e.customerId)} AS text[]),
                    CAST(${sorted.map((e) => JSON.stringify(e.properties))} AS jsonb[]), CAST(CAST(${sorted.map((e) => e.timestamp.toISOString())} AS text[]) AS timestamptz[]), CAST(${sorted.map((e) => e.key)} AS text[]))
             WITH ORDINALITY AS e(id, name, customer, properties, at, key, ord)
       ORDER BY e.ord
      ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING
      RETURNING "idempotencyKey" AS key, "properties"
    ), t AS (
      SELECT * FROM unnest(CAST(${targets.map((t) => t.key)} AS text[]), CAST(${targets.map((t) => t.meterId)} AS text[]), CAST(${targets.map((t) => t.customerId)} AS text[]),
                           CAST(CAST(${targets.map((t) => t.periodStart.toISOString())} AS text[]) AS timestamptz[]),
                           CAST(CAST(${targets.map((t) => t.periodEnd.toISOString())} AS text[]) AS timestamptz[])) AS t(key, meter, customer, ps, pe)
    ), hits AS (
      SELECT t.meter, t.customer, t.ps, t.pe, ${caseOf((m) => numberOf(m, props), 'numeric')} AS v, ${caseOf((m) => textOf(m, props), 'text')} AS u
        FROM ins JOIN t ON t.key = ins.key
       WHERE coalesce(${caseOf((m) => filterSql(m.filter, props), 'boolean')}, false)
    ), uniq AS (
      INSERT INTO "MeterUniqueValue" ("storeId", "mode", "meterId", "customerId", "periodStart", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), h.meter, h.customer, h.ps, h.u FROM hits h
       WHERE h.meter = ANY(CAST(${uniqueMeters} AS text[])) AND h.u IS NOT NULL
       ORDER BY 3, 4, 5, 6
      ON CONFLICT DO NOTHING
      RETURNING "meterId" AS meter, "customerId" AS customer, "periodStart" AS ps
    ), agg AS (
      SELECT h.meter, h.customer, h.ps, max(h.pe) AS pe, count(*) AS n, count(h.v) AS nv, coalesce(sum(h.v), 0) AS s, min(h.v) AS mn, max(h.v) AS mx
        FROM hits h GROUP BY h.meter, h.customer, h.ps
    ), uagg AS (
      SELECT meter, customer, ps, count(*) AS nu FROM uniq GROUP BY meter, customer, ps
    ), folded AS (
      INSERT INTO "MeterUsage" ("storeId", "mode", "meterId", "customerId", "periodStart", "periodEnd", "eventCount", "valueCount", "sum", "min", "max", "uniqueCount", "updatedAt")
      SELECT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), a.meter, a.customer, a.ps, a.pe, a.n, a.nv, a.s, a.mn, a.mx, coalesce(ua.nu, 0), ${now}
        FROM agg a LEFT JOIN uagg ua ON ua.meter = a.meter AND ua.customer = a.customer AND ua.ps = a.ps
       ORDER BY a.meter, a.customer, a.ps
      ON CONFLICT ("meterId", "customerId", "periodStart") DO UPDATE SET
        "eventCount" = "MeterUsage"."eventCount" + EXCLUDED."eventCount", "valueCount" = "MeterUsage"."valueCount" + EXCLUDED."valueCount",
        "sum" = "MeterUsage"."sum" + EXCLUDED."sum", "min" = LEAST("MeterUsage"."min", EXCLUDED."min"), "max" = GREATEST("MeterUsage"."max", EXCLUDED."max"),
        "uniqueCount" = "MeterUsage"."uniqueCount" + EXCLUDED."uniqueCount", "updatedAt" = EXCLUDED."updatedAt"
      RETURNING "meterId"
    ), seen AS (
      UPDATE "Meter" SET "usageSeenAt" = ${now}
       WHERE "id" IN (SELECT DISTINCT "meterId" FROM folded) AND "usageSeenAt" IS NULL AND "storeId" = ${ctx.storeId} AND "mode" = CAST(${ctx.mode} AS "Mode")
      RETURNING "id"
    )
    SELECT (SELECT count(*) FROM ins) AS inserted, (SELECT count(*) FROM seen) AS seen`;
  return Number(row!.inserted);
}

/**
 * Replaces a (customer, meter) period's projection row with a replay of its raw events (an
 * unarchived meter folds back in what arrived while it was archived).
 */
export async function refold(ctx: TenantContext, m: MeterDefinition & { id: string }, customerId: string, period: { start: Date; end: Date }, now: Date): Promise<void> {
  const props = Prisma.sql`e."properties"`;
  const client = sqlClient(ctx);
  await client.$executeRaw`DELETE FROM "MeterUniqueValue" WHERE "meterId" = ${m.id} AND "customerId" = ${customerId} AND "periodStart" = ${period.start} AND "storeId" = ${ctx.storeId} AND "mode" = CAST(${ctx.mode} AS "Mode")`;
  await client.$executeRaw`DELETE FROM "MeterUsage" WHERE "meterId" = ${m.id} AND "customerId" = ${customerId} AND "periodStart" = ${period.start} AND "storeId" = ${ctx.storeId} AND "mode" = CAST(${ctx.mode} AS "Mode")`;
  await client.$executeRaw`
    WITH matched AS (
      SELECT ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u FROM "UsageEvent" e
       WHERE e."storeId" = ${ctx.storeId} AND e."mode" = CAST(${ctx.mode} AS "Mode") AND e."eventName" = ${m.eventName} AND e."customerId" = ${customerId}
         AND e."timestamp" >= ${period.start} AND e."timestamp" < ${period.end} AND ${filterSql(m.filter, props)}
    ), uniq AS (
      INSERT INTO "MeterUniqueValue" ("storeId", "mode", "meterId", "customerId", "periodStart", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, ${customerId}, CAST(${period.start} AS timestamptz), u FROM matched WHERE u IS NOT NULL AND ${m.aggregation === 'unique'}
      RETURNING 1
    )
    INSERT INTO "MeterUsage" ("storeId", "mode", "meterId", "customerId", "periodStart", "periodEnd", "eventCount", "valueCount", "sum", "min", "max", "uniqueCount", "updatedAt")
    SELECT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, ${customerId}, ${period.start}, ${period.end}, count(*), count(v), coalesce(sum(v), 0), min(v), max(v), (SELECT count(*) FROM uniq), ${now}
      FROM matched HAVING count(*) > 0`;
}

/**
 * Consumed units of many (meter, customer, period) projection rows at once, each by its meter's
 * aggregation: what renewals bill. Rows nothing was folded into are absent.
 */
export async function readProjections(ctx: TenantContext, keys: readonly { meterId: string; customerId: string; periodStart: Date }[]): Promise<{ meterId: string; customerId: string; periodStart: Date; units: string }[]> {
  if (!keys.length) return [];
  const cols = { events: Prisma.sql`u."eventCount"`, values: Prisma.sql`u."valueCount"`, sum: Prisma.sql`u."sum"`, min: Prisma.sql`u."min"`, max: Prisma.sql`u."max"`, uniques: Prisma.sql`u."uniqueCount"` };
  const aggregations: Aggregation[] = ['count', 'sum', 'average', 'min', 'max', 'unique'];
  const rows = await sqlClient(ctx).$queryRaw<{ meter_id: string; customer_id: string; period_start: Date; units: string }[]>`
    SELECT u."meterId" AS meter_id, u."customerId" AS customer_id, u."periodStart" AS period_start,
           CASE m."aggregation" ${Prisma.join(aggregations.map((a) => Prisma.sql`WHEN ${a} THEN ${unitsSql(a, cols)}`), ' ')} END AS units
      FROM unnest(CAST(${keys.map((k) => k.meterId)} AS text[]), CAST(${keys.map((k) => k.customerId)} AS text[]), CAST(CAST(${keys.map((k) => k.periodStart.toISOString())} AS text[]) AS timestamptz[])) AS k(meter, customer, ps)
      JOIN "MeterUsage" u ON u."meterId" = k.meter AND u."customerId" = k.customer AND u."periodStart" = k.ps
      JOIN "Meter" m ON m."id" = u."meterId"
     WHERE u."storeId" = ${ctx.storeId} AND u."mode" = CAST(${ctx.mode} AS "Mode")`;
  return rows.map((r) => ({ meterId: r.meter_id, customerId: r.customer_id, periodStart: r.period_start, units: r.units }));
}
