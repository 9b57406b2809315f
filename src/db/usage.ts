/**
 * The usage-metering statements: aggregation happens in the database, over the stored
 * `properties` (read by the SQL functions of migration `usage_metering_functions`). Each
 * statement filters and stamps the caller's tenant itself.
 */
import { Prisma } from '../generated/prisma/client.js';
import type { FilterClause, MeterFilter } from '../modules/meters/meter-filter.js';
import { prepared } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

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

/**
 * The aggregation property as a number (sum, average, min, max) and as text (unique); NULL for
 * the aggregations that do not read it, so no statement parses what it does not use.
 */
const numberOf = (m: MeterDefinition, properties: Prisma.Sql) =>
  m.property && m.aggregation !== 'count' && m.aggregation !== 'unique' ? Prisma.sql`usage_number(${properties} -> CAST(${m.property} AS text))` : Prisma.sql`CAST(NULL AS numeric)`;
const textOf = (m: MeterDefinition, properties: Prisma.Sql) => (m.property && m.aggregation === 'unique' ? Prisma.sql`usage_text(${properties} -> CAST(${m.property} AS text))` : Prisma.sql`CAST(NULL AS text)`);

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

/** The parts of `unitsSql` as columns of a consumed-units projection row `u` ("MeterUsage"). */
const PROJECTION_PARTS = { events: Prisma.sql`u."eventCount"`, values: Prisma.sql`u."valueCount"`, sum: Prisma.sql`u."sum"`, min: Prisma.sql`u."min"`, max: Prisma.sql`u."max"`, uniques: Prisma.sql`u."uniqueCount"` };

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
             WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName}
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
       WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName}
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
    SELECT ${unitsSql(m.aggregation, PROJECTION_PARTS)} AS units,
           u."updatedAt" AS updated_at
      FROM "MeterUsage" u
     WHERE u."meterId" = ${m.id} AND u."customerId" = ${customerId} AND u."periodStart" = ${periodStart}
       AND ${tenantCondition(ctx, 'u')}`;
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

/** A value as one jsonb parameter: a batch travels as one text, not as per-element array parameters. */
const jsonb = (value: unknown) => Prisma.sql`CAST(${JSON.stringify(value)} AS jsonb)`;
/** A timestamptz from epoch milliseconds (a bigint expression), exact to the millisecond. */
const epochMs = (column: string) => Prisma.raw(`(TIMESTAMPTZ 'epoch' + ${column} * INTERVAL '1 millisecond')`);
/** The strings as a text[] built from one jsonb parameter. */
const textArray = (values: readonly string[]) => Prisma.sql`ARRAY(SELECT jsonb_array_elements_text(${jsonb(values)}))`;

/**
 * What identifies a meter's state for ingestion: a meter created, redefined, archived or
 * unarchived between an ingest's plan and its write changes the set, and the write is refused.
 */
const meterVersion = (alias: string) => Prisma.sql`${Prisma.raw(alias)}."id" || ':' || ${Prisma.raw(alias)}."status" || ':' || floor(extract(epoch FROM ${Prisma.raw(alias)}."updatedAt") * 1000)::bigint`;

/** A stored meter, as the ingest and consumed-units reads return it. */
export interface MeterRow {
  id: string;
  eventName: string;
  status: string;
  aggregation: string;
  aggregationProperty: string | null;
  filter: unknown;
  unitLabel: string;
  dailyRollupFrom: Date | null;
  version: string;
}

/** The live subscriptions that price some of the meters, newest first: what metering periods are made of. */
export interface SubscriptionPeriodRow {
  customerId: string;
  start: Date;
  end: Date;
  anchor: Date | null;
  billingPeriods: number;
  interval: string | null;
  intervalCount: number | null;
  meterIds: string[];
}

const LIVE_SUBSCRIPTION = ['active', 'trialing', 'past_due', 'scheduled_cancel'];

const meterColumns = (alias: string) => Prisma.sql`${Prisma.raw(alias)}."id", ${Prisma.raw(alias)}."eventName", ${Prisma.raw(alias)}."status", ${Prisma.raw(alias)}."aggregation",
  ${Prisma.raw(alias)}."aggregationProperty", ${Prisma.raw(alias)}."filter", ${Prisma.raw(alias)}."unitLabel", ${Prisma.raw(alias)}."dailyRollupFrom", ${meterVersion(alias)} AS "version"`;

/** Subscriptions of `customers` (a set expression) pricing one of `meters` (a set expression), as JSON rows. */
const subscriptionPeriodsJson = (ctx: TenantContext, customers: Prisma.Sql, meters: Prisma.Sql) => Prisma.sql`(
  SELECT coalesce(json_agg(x ORDER BY x."createdAt" DESC, x."id" DESC), '[]') FROM (
    SELECT s."id", s."createdAt", s."customerId", s."currentPeriodStartDate" AS "start", s."currentPeriodEndDate" AS "end", s."billingAnchor" AS "anchor", s."billingPeriods",
           p."recurringInterval" AS "interval", p."recurringIntervalCount" AS "intervalCount", array_agg(up."meterId" ORDER BY up."meterId") AS "meterIds"
      FROM "Subscription" s JOIN "Product" p ON p."id" = s."productId" JOIN "UsagePrice" up ON up."productId" = s."productId"
     WHERE ${tenantCondition(ctx, 's')} AND s."customerId" IN (${customers}) AND up."meterId" IN (${meters})
       AND CAST(s."status" AS text) IN (${Prisma.join(LIVE_SUBSCRIPTION)}) AND s."currentPeriodStartDate" IS NOT NULL
     GROUP BY s."id", p."id") x)`;

const date = (v: string | null) => (v === null ? null : new Date(v));
type Json<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };
const subscriptionRows = (rows: Json<SubscriptionPeriodRow>[]): SubscriptionPeriodRow[] => rows.map((r) => ({ ...r, start: new Date(r.start), end: new Date(r.end), anchor: date(r.anchor) }));
const meterRows = (rows: Json<MeterRow>[]): MeterRow[] => rows.map((r) => ({ ...r, dailyRollupFrom: date(r.dailyRollupFrom) }));

/** The subscriptions behind the metering periods of these customers and meters (one statement). */
export async function readSubscriptionPeriods(ctx: TenantContext, customerIds: readonly string[], meterIds: readonly string[]): Promise<SubscriptionPeriodRow[]> {
  if (!customerIds.length || !meterIds.length) return [];
  const [row] = await sqlClient(ctx).$queryRaw<{ rows: Json<SubscriptionPeriodRow>[] }[]>`
    SELECT ${subscriptionPeriodsJson(ctx, Prisma.sql`SELECT unnest(${textArray(customerIds)})`, Prisma.sql`SELECT unnest(${textArray(meterIds)})`)} AS rows`;
  return subscriptionRows(row!.rows);
}

export interface IngestInputs {
  /** The customers found, by id or by external id. */
  customers: { id: string; externalId: string | null }[];
  /** Every meter of the event names, active and archived, oldest first. */
  meters: MeterRow[];
  subscriptions: SubscriptionPeriodRow[];
}

/** Everything an ingest plans with, in one statement: customers, meters of the names, and the subscriptions behind their periods. */
export async function readIngestInputs(ctx: TenantContext, q: { customerIds: readonly string[]; externalIds: readonly string[]; eventNames: readonly string[] }): Promise<IngestInputs> {
  const [row] = await sqlClient(ctx).$queryRaw<{ customers: IngestInputs['customers']; meters: Json<MeterRow>[]; subscriptions: Json<SubscriptionPeriodRow>[] }[]>`${prepared}
    WITH c AS (
      SELECT c."id", c."externalId" FROM "Customer" c
       WHERE ${tenantCondition(ctx, 'c')} AND (c."id" = ANY(${textArray(q.customerIds)}) OR c."externalId" = ANY(${textArray(q.externalIds)}))
    ), m AS (
      SELECT ${meterColumns('m')} FROM "Meter" m WHERE ${tenantCondition(ctx, 'm')} AND m."eventName" = ANY(${textArray(q.eventNames)})
    )
    SELECT (SELECT coalesce(json_agg(c), '[]') FROM c) AS customers, (SELECT coalesce(json_agg(m ORDER BY m."id"), '[]') FROM m) AS meters,
           ${subscriptionPeriodsJson(ctx, Prisma.sql`SELECT "id" FROM c`, Prisma.sql`SELECT "id" FROM m WHERE "status" = 'active'`)} AS subscriptions`;
  return { customers: row!.customers, meters: meterRows(row!.meters), subscriptions: subscriptionRows(row!.subscriptions) };
}

/** The units of a projection row `u` by its meter `m`'s aggregation. */
function projectionUnitsSql(): Prisma.Sql {
  const aggregations: Aggregation[] = ['count', 'sum', 'average', 'min', 'max', 'unique'];
  return Prisma.sql`CASE m."aggregation" ${Prisma.join(aggregations.map((a) => Prisma.sql`WHEN ${a} THEN ${unitsSql(a, PROJECTION_PARTS)}`), ' ')} END`;
}

/** How many of a customer's newest projection rows of a meter (periods started by now) the consumed-units read brings along. */
const RECENT_PERIODS = 3;

export interface ConsumedInputs {
  meter: MeterRow | null;
  customerExists: boolean;
  subscriptions: SubscriptionPeriodRow[];
  /** The customer's newest projection rows of the meter whose period started by `now`, newest first (at most RECENT_PERIODS). */
  recent: { periodStart: Date; units: string; updatedAt: Date }[];
}

/**
 * What consumed units read, in one statement: the meter, whether the customer exists, the
 * subscriptions behind the customer's periods, and the newest projection rows (the current
 * period's is among them whenever it exists; see `currentRow`).
 */
export async function readConsumedInputs(ctx: TenantContext, meterId: string, customerId: string, now: Date): Promise<ConsumedInputs> {
  const [row] = await sqlClient(ctx).$queryRaw<{ meters: Json<MeterRow>[]; customer: boolean; subscriptions: Json<SubscriptionPeriodRow>[]; recent: { periodStart: string; units: string; updatedAt: string }[] }[]>`${prepared}
    SELECT (SELECT coalesce(json_agg(m), '[]') FROM (SELECT ${meterColumns('m')} FROM "Meter" m WHERE m."id" = ${meterId} AND ${tenantCondition(ctx, 'm')}) m) AS meters,
           EXISTS (SELECT 1 FROM "Customer" c WHERE c."id" = ${customerId} AND ${tenantCondition(ctx, 'c')}) AS customer,
           ${subscriptionPeriodsJson(ctx, Prisma.sql`SELECT CAST(${customerId} AS text)`, Prisma.sql`SELECT CAST(${meterId} AS text)`)} AS subscriptions,
           (SELECT coalesce(json_agg(r), '[]') FROM (
              SELECT u."periodStart", ${projectionUnitsSql()} AS units, u."updatedAt"
                FROM "MeterUsage" u JOIN "Meter" m ON m."id" = u."meterId"
               WHERE u."meterId" = ${meterId} AND u."customerId" = ${customerId} AND u."periodStart" <= ${now} AND ${tenantCondition(ctx, 'u')}
               ORDER BY u."periodStart" DESC LIMIT ${RECENT_PERIODS}) r) AS recent`;
  return {
    meter: meterRows(row!.meters)[0] ?? null,
    customerExists: row!.customer,
    subscriptions: subscriptionRows(row!.subscriptions),
    recent: row!.recent.map((r) => ({ periodStart: new Date(r.periodStart), units: r.units, updatedAt: new Date(r.updatedAt) })),
  };
}

/**
 * The projection row of the period starting at `start` among the newest rows read: found, known
 * absent (the rows reach back past it), or undefined when every row read is newer (periods that
 * overlap after a subscription change), for the caller to read it by key.
 */
export function currentRow(recent: ConsumedInputs['recent'], start: Date): { units: string; updatedAt: Date } | null | undefined {
  const hit = recent.find((r) => r.periodStart.getTime() === start.getTime());
  if (hit) return hit;
  return recent.length < RECENT_PERIODS || recent.some((r) => r.periodStart < start) ? null : undefined;
}

export interface StoreAndFold {
  events: readonly NewUsageEvent[];
  /** The periods the events count in, per active meter. */
  targets: readonly FoldTarget[];
  /** Every meter with a daily rollup that events of the batch's names feed (archived ones too). */
  rollups: readonly { meterId: string }[];
  /** The definitions of the meters of `targets` and `rollups`. */
  meters: ReadonlyMap<string, MeterDefinition>;
  /** The versions of every meter of the batch's event names the plan saw (see `meterVersion`). */
  versions: readonly string[];
  eventNames: readonly string[];
}

/**
 * Stores the events that are new (a known `event_id` records nothing: deduplicated forever,
 * also against a concurrent batch, which waits on the unique index) and, in the same
 * statement, folds each new one that its meter's filter lets through into the consumed-units
 * projection rows of its targets and into the daily rollup of every meter of its name. Rows
 * are written in key order, so two batches never deadlock.
 *
 * The statement first checks that the meters of the batch's names are still the ones the plan
 * saw; if one was created, redefined, archived or unarchived since, it writes nothing and
 * answers `fresh: false`, and the caller plans again. (A meter change takes a SHARE lock on the
 * events table before it summarizes them, so a write is either summarized by it or sees it.)
 */
export async function storeAndFold(ctx: TenantContext, now: Date, batch: StoreAndFold): Promise<{ fresh: boolean; inserted: number }> {
  if (!batch.events.length) return { fresh: true, inserted: 0 };
  const props = Prisma.sql`ins."properties"`;
  const fed = [...new Set([...batch.targets.map((t) => t.meterId), ...batch.rollups.map((r) => r.meterId)])].map((id) => [id, batch.meters.get(id)!] as const);
  const caseOf = (of: (m: MeterDefinition) => Prisma.Sql, type: 'numeric' | 'text' | 'boolean') =>
    fed.length ? Prisma.sql`CASE rm.meter ${Prisma.join(fed.map(([id, m]) => Prisma.sql`WHEN ${id} THEN ${of(m)}`), ' ')} END` : Prisma.sql`CAST(NULL AS ${Prisma.raw(type)})`;
  const uniqueMeters = fed.filter(([, m]) => m.aggregation === 'unique').map(([id]) => id);
  const sorted = [...batch.events].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // Rows travel as arrays (no key names repeated per row) and instants as epoch milliseconds:
  // the batch is serialized twice on its way to the driver, so its size is CPU.
  const events = sorted.map((e) => [e.id, e.eventName, e.customerId, e.properties, e.timestamp.getTime(), e.key]);
  // Each meter an event of its name feeds: its rollup (when it keeps one) and, through `targets`, its projection.
  const rollups = new Set(batch.rollups.map((r) => r.meterId));
  const rm = fed.map(([id, m]) => ({ meter: id, name: m.eventName, rollup: rollups.has(id) }));
  const targets = batch.targets.map((t) => [t.key, t.meterId, t.periodStart.getTime(), t.periodEnd.getTime()]);
  const [row] = await sqlClient(ctx).$queryRaw<{ fresh: boolean; inserted: bigint }[]>`${prepared}
    WITH fresh AS (
      SELECT coalesce((SELECT array_agg(${meterVersion('m')} ORDER BY m."id") FROM "Meter" m WHERE ${tenantCondition(ctx, 'm')} AND m."eventName" = ANY(${textArray(batch.eventNames)})), '{}')
             = ${textArray(batch.versions)} AS ok
    ), ins AS (
      INSERT INTO "UsageEvent" ("id", "storeId", "mode", "eventName", "customerId", "properties", "timestamp", "idempotencyKey", "createdAt")
      SELECT e.r ->> 0, ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), e.r ->> 1, e.r ->> 2, e.r -> 3, ${epochMs("CAST(e.r ->> 4 AS bigint)")}, e.r ->> 5, ${now}
        FROM jsonb_array_elements(${jsonb(events)}) WITH ORDINALITY AS e(r, ord)
       WHERE (SELECT ok FROM fresh)
       ORDER BY e.ord
      ON CONFLICT ("storeId", "mode", "idempotencyKey") DO NOTHING
      RETURNING "idempotencyKey" AS key, "eventName" AS name, "customerId" AS customer, "timestamp" AS at, "properties"
    ), hits AS (
      SELECT rm.meter, rm.rollup, ins.key, ins.customer, CAST(ins.at AT TIME ZONE 'UTC' AS date) AS day,
             ${caseOf((m) => numberOf(m, props), 'numeric')} AS v, ${caseOf((m) => textOf(m, props), 'text')} AS u
        FROM ins JOIN jsonb_to_recordset(${jsonb(rm)}) AS rm(meter text, name text, rollup boolean) ON rm.name = ins.name
       WHERE coalesce(${caseOf((m) => filterSql(m.filter, props), 'boolean')}, false)
    ), targeted AS (
      SELECT h.meter, h.customer, ${epochMs("CAST(t.r ->> 2 AS bigint)")} AS ps, ${epochMs("CAST(t.r ->> 3 AS bigint)")} AS pe, h.v, h.u
        FROM hits h JOIN jsonb_array_elements(${jsonb(targets)}) AS t(r) ON t.r ->> 0 = h.key AND t.r ->> 1 = h.meter
    ), uniq AS (
      INSERT INTO "MeterUniqueValue" ("storeId", "mode", "meterId", "customerId", "periodStart", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), h.meter, h.customer, h.ps, h.u FROM targeted h
       WHERE h.meter = ANY(${textArray(uniqueMeters)}) AND h.u IS NOT NULL
       ORDER BY 3, 4, 5, 6
      ON CONFLICT DO NOTHING
      RETURNING "meterId" AS meter, "customerId" AS customer, "periodStart" AS ps
    ), agg AS (
      SELECT h.meter, h.customer, h.ps, max(h.pe) AS pe, count(*) AS n, count(h.v) AS nv, coalesce(sum(h.v), 0) AS s, min(h.v) AS mn, max(h.v) AS mx
        FROM targeted h GROUP BY h.meter, h.customer, h.ps
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
    ), rolled AS (
      INSERT INTO "MeterDailyUsage" ("storeId", "mode", "meterId", "day", "customerId", "eventCount", "valueCount", "sum", "min", "max")
      SELECT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), h.meter, h.day, h.customer, count(*), count(h.v), coalesce(sum(h.v), 0), min(h.v), max(h.v)
        FROM hits h WHERE h.rollup GROUP BY h.meter, h.day, h.customer
       ORDER BY 3, 4, 5
      ON CONFLICT ("meterId", "day", "customerId") DO UPDATE SET
        "eventCount" = "MeterDailyUsage"."eventCount" + EXCLUDED."eventCount", "valueCount" = "MeterDailyUsage"."valueCount" + EXCLUDED."valueCount",
        "sum" = "MeterDailyUsage"."sum" + EXCLUDED."sum", "min" = LEAST("MeterDailyUsage"."min", EXCLUDED."min"), "max" = GREATEST("MeterDailyUsage"."max", EXCLUDED."max")
      RETURNING 1
    ), rolled_unique AS (
      INSERT INTO "MeterDailyUniqueValue" ("storeId", "mode", "meterId", "day", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), h.meter, h.day, h.u FROM hits h
       WHERE h.rollup AND h.meter = ANY(${textArray(uniqueMeters)}) AND h.u IS NOT NULL
       ORDER BY 3, 4, 5
      ON CONFLICT DO NOTHING
      RETURNING 1
    ), seen AS (
      UPDATE "Meter" SET "usageSeenAt" = ${now}
       WHERE "id" IN (SELECT DISTINCT "meterId" FROM folded) AND "usageSeenAt" IS NULL AND ${tenantCondition(ctx)}
      RETURNING "id"
    )
    SELECT (SELECT ok FROM fresh) AS fresh, (SELECT count(*) FROM ins) AS inserted, (SELECT count(*) FROM seen) AS seen`;
  return { fresh: row!.fresh, inserted: Number(row!.inserted) };
}

/**
 * Waits for every ingest write in flight and holds new ones until the caller's transaction
 * ends, so that what the caller summarizes from the raw events next misses none of them, and
 * every write after it sees the caller's meter change (see `storeAndFold`). Inside a transaction.
 */
export async function holdIngestion(ctx: TenantContext): Promise<void> {
  await sqlClient(ctx).$executeRaw`LOCK TABLE "UsageEvent" IN SHARE MODE`;
}

/** Rebuilds a meter's daily rollup from its raw events of `fromDay` on (a UTC day start). Call holdIngestion first. */
export async function rebuildDailyRollup(ctx: TenantContext, m: MeterDefinition & { id: string }, fromDay: Date): Promise<void> {
  const props = Prisma.sql`e."properties"`;
  const client = sqlClient(ctx);
  await client.$executeRaw`DELETE FROM "MeterDailyUniqueValue" d WHERE d."meterId" = ${m.id} AND ${tenantCondition(ctx, 'd')}`;
  await client.$executeRaw`DELETE FROM "MeterDailyUsage" d WHERE d."meterId" = ${m.id} AND ${tenantCondition(ctx, 'd')}`;
  await client.$executeRaw`
    WITH matched AS (
      SELECT CAST(e."timestamp" AT TIME ZONE 'UTC' AS date) AS day, e."customerId" AS customer, ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u FROM "UsageEvent" e
       WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName} AND e."timestamp" >= ${fromDay} AND ${filterSql(m.filter, props)}
    ), uniq AS (
      INSERT INTO "MeterDailyUniqueValue" ("storeId", "mode", "meterId", "day", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, day, u FROM matched WHERE u IS NOT NULL AND ${m.aggregation === 'unique'}
      RETURNING 1
    )
    INSERT INTO "MeterDailyUsage" ("storeId", "mode", "meterId", "day", "customerId", "eventCount", "valueCount", "sum", "min", "max")
    SELECT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, day, customer, count(*), count(v), coalesce(sum(v), 0), min(v), max(v)
      FROM matched GROUP BY day, customer`;
}

/**
 * The meter preview from the daily rollup: every event of the days [from, today] (a window
 * whose days the rollup holds in full), no scan cap. The rollup counts an event on the day of
 * its timestamp whenever it arrived, so a day holding events dated later than `now` (sent
 * ahead) cannot be cut at `now` from its rows: then today is read from the raw events instead.
 */
export async function previewFromRollup(ctx: TenantContext, m: MeterDefinition & { id: string }, range: { from: Date; today: Date; now: Date }): Promise<DailyPreview> {
  const props = Prisma.sql`e."properties"`;
  const tomorrow = new Date(range.today.getTime() + 24 * 60 * 60 * 1000);
  const unique = m.aggregation === 'unique';
  const parts = (uniques: Prisma.Sql) => ({ events: Prisma.sql`coalesce(sum(r.n), 0)`, values: Prisma.sql`sum(r.nv)`, sum: Prisma.sql`sum(r.s)`, min: Prisma.sql`min(r.mn)`, max: Prisma.sql`max(r.mx)`, uniques });
  const rows = await sqlClient(ctx).$queryRaw<{ day: string | null; events: string; skipped: string | null; customers: bigint; units: string }[]>`
    WITH cut AS (
      SELECT CASE WHEN EXISTS (SELECT 1 FROM "UsageEvent" e WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName} AND e."timestamp" > ${range.now} AND e."timestamp" < ${tomorrow})
                  THEN CAST(${range.today} AS timestamptz) ELSE CAST(${tomorrow} AS timestamptz) END AS at
    ), raw AS (
      SELECT CAST(e."timestamp" AT TIME ZONE 'UTC' AS date) AS day, e."customerId" AS customer, ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u
        FROM "UsageEvent" e, cut
       WHERE cut.at = ${range.today} AND ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName} AND e."timestamp" >= ${range.today} AND e."timestamp" <= ${range.now} AND ${filterSql(m.filter, props)}
    ), r AS (
      SELECT d."day", d."customerId" AS customer, d."eventCount" AS n, d."valueCount" AS nv, d."sum" AS s, d."min" AS mn, d."max" AS mx
        FROM "MeterDailyUsage" d, cut
       WHERE d."meterId" = ${m.id} AND ${tenantCondition(ctx, 'd')} AND d."day" >= CAST(${range.from} AT TIME ZONE 'UTC' AS date) AND d."day" < CAST(cut.at AT TIME ZONE 'UTC' AS date)
      UNION ALL
      SELECT day, customer, count(*), count(v), coalesce(sum(v), 0), min(v), max(v) FROM raw GROUP BY day, customer
    ), uv AS (
      SELECT d."day", d."value" FROM "MeterDailyUniqueValue" d, cut
       WHERE ${unique} AND d."meterId" = ${m.id} AND ${tenantCondition(ctx, 'd')} AND d."day" >= CAST(${range.from} AT TIME ZONE 'UTC' AS date) AND d."day" < CAST(cut.at AT TIME ZONE 'UTC' AS date)
      UNION
      SELECT day, u FROM raw WHERE ${unique} AND u IS NOT NULL
    )
    SELECT NULL AS day, coalesce(sum(r.n), 0)::text AS events, (coalesce(sum(r.n), 0) - coalesce(sum(r.nv), 0))::text AS skipped, count(DISTINCT r.customer) AS customers,
           ${unitsSql(m.aggregation, parts(Prisma.sql`(SELECT count(DISTINCT uv."value") FROM uv)`))} AS units
      FROM r
    UNION ALL
    SELECT to_char(r.day, 'YYYY-MM-DD'), sum(r.n)::text, (sum(r.n) - sum(r.nv))::text, count(DISTINCT r.customer),
           ${unitsSql(m.aggregation, parts(Prisma.sql`(SELECT count(*) FROM uv WHERE uv.day = r.day)`))}
      FROM r GROUP BY r.day`;
  const total = rows.find((r) => r.day === null)!;
  const numeric = m.aggregation !== 'count' && m.aggregation !== 'unique';
  return {
    totals: { events: Number(total.events), skipped: numeric ? Number(total.skipped) : 0, customers: Number(total.customers), units: total.units },
    days: rows.filter((r) => r.day !== null).map((r) => ({ day: r.day!, events: Number(r.events), units: r.units })),
    capped: false,
  };
}

/** The customers with events of the name since `since` (whose open periods a replay may change). */
export async function customersWithEvents(ctx: TenantContext, eventName: string, since: Date): Promise<string[]> {
  const rows = await sqlClient(ctx).$queryRaw<{ customer: string }[]>`
    SELECT DISTINCT e."customerId" AS customer FROM "UsageEvent" e WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${eventName} AND e."timestamp" >= ${since}`;
  return rows.map((r) => r.customer);
}

/**
 * Replaces the projection rows of the given (customer, period)s of a meter with a replay of
 * their raw events (a new meter counts what its name already received in periods still open;
 * an unarchived one what arrived while it was archived). Three statements whatever the count.
 */
export async function refoldPeriods(ctx: TenantContext, m: MeterDefinition & { id: string }, periods: readonly { customerId: string; start: Date; end: Date }[], now: Date): Promise<void> {
  if (!periods.length) return;
  const props = Prisma.sql`e."properties"`;
  const client = sqlClient(ctx);
  const p = Prisma.sql`jsonb_to_recordset(${jsonb(periods.map((x) => ({ customer: x.customerId, ps: x.start.toISOString(), pe: x.end.toISOString() })))}) AS p(customer text, ps timestamptz, pe timestamptz)`;
  await client.$executeRaw`DELETE FROM "MeterUniqueValue" u USING ${p} WHERE u."meterId" = ${m.id} AND u."customerId" = p.customer AND u."periodStart" = p.ps AND ${tenantCondition(ctx, 'u')}`;
  await client.$executeRaw`DELETE FROM "MeterUsage" u USING ${p} WHERE u."meterId" = ${m.id} AND u."customerId" = p.customer AND u."periodStart" = p.ps AND ${tenantCondition(ctx, 'u')}`;
  await client.$executeRaw`
    WITH matched AS (
      SELECT p.customer, p.ps, p.pe, ${numberOf(m, props)} AS v, ${textOf(m, props)} AS u
        FROM ${p} JOIN "UsageEvent" e ON e."customerId" = p.customer AND e."timestamp" >= p.ps AND e."timestamp" < p.pe
       WHERE ${tenantCondition(ctx, 'e')} AND e."eventName" = ${m.eventName} AND ${filterSql(m.filter, props)}
    ), uniq AS (
      INSERT INTO "MeterUniqueValue" ("storeId", "mode", "meterId", "customerId", "periodStart", "value")
      SELECT DISTINCT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, customer, ps, u FROM matched WHERE u IS NOT NULL AND ${m.aggregation === 'unique'}
      RETURNING "customerId" AS customer, "periodStart" AS ps
    ), uagg AS (SELECT customer, ps, count(*) AS nu FROM uniq GROUP BY customer, ps)
    INSERT INTO "MeterUsage" ("storeId", "mode", "meterId", "customerId", "periodStart", "periodEnd", "eventCount", "valueCount", "sum", "min", "max", "uniqueCount", "updatedAt")
    SELECT ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${m.id}, x.customer, x.ps, x.pe, x.n, x.nv, x.s, x.mn, x.mx, coalesce(ua.nu, 0), ${now}
      FROM (SELECT customer, ps, max(pe) AS pe, count(*) AS n, count(v) AS nv, coalesce(sum(v), 0) AS s, min(v) AS mn, max(v) AS mx FROM matched GROUP BY customer, ps) x
      LEFT JOIN uagg ua ON ua.customer = x.customer AND ua.ps = x.ps`;
}

/**
 * Consumed units of many (meter, customer, period) projection rows at once, each by its meter's
 * aggregation: what renewals bill. Rows nothing was folded into are absent.
 */
export async function readProjections(ctx: TenantContext, keys: readonly { meterId: string; customerId: string; periodStart: Date }[]): Promise<{ meterId: string; customerId: string; periodStart: Date; units: string }[]> {
  if (!keys.length) return [];
  const rows = await sqlClient(ctx).$queryRaw<{ meter_id: string; customer_id: string; period_start: Date; units: string }[]>`
    SELECT u."meterId" AS meter_id, u."customerId" AS customer_id, u."periodStart" AS period_start, ${projectionUnitsSql()} AS units
      FROM unnest(CAST(${keys.map((k) => k.meterId)} AS text[]), CAST(${keys.map((k) => k.customerId)} AS text[]), CAST(CAST(${keys.map((k) => k.periodStart.toISOString())} AS text[]) AS timestamptz[])) AS k(meter, customer, ps)
      JOIN "MeterUsage" u ON u."meterId" = k.meter AND u."customerId" = k.customer AND u."periodStart" = k.ps
      JOIN "Meter" m ON m."id" = u."meterId"
     WHERE ${tenantCondition(ctx, 'u')}`;
  return rows.map((r) => ({ meterId: r.meter_id, customerId: r.customer_id, periodStart: r.period_start, units: r.units }));
}
