import type { Meter, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { cursorPage, listing } from '../../db/listing.js';
import { db, inTransaction } from '../../db/tenant.js';
import { aggregateEvents, holdIngestion, previewEvents, previewFromRollup, currentRow, readConsumedInputs, readProjection, rebuildDailyRollup, customersWithEvents, refoldPeriods, type MeterDefinition } from '../../db/usage.js';
import { AppError, notFound, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { addDays } from '../../lib/periods.js';
import { MATCH_ALL, storedFilter } from './meter-filter.js';
import type { Aggregation, ConsumedUnitsInput, CreateMeterInput, ListMetersInput, PreviewMeterInput, UpdateMeterInput } from './meters.schemas.js';
import { LATE_EVENT_WINDOW_MS, meteringPeriods, periodsFrom } from './usage-periods.js';

/** What the statements of src/db/usage.ts need of a stored meter. */
export const definitionOf = (m: Pick<Meter, 'id' | 'eventName' | 'aggregation' | 'aggregationProperty'> & { filter: unknown }): MeterDefinition & { id: string } => ({
  id: m.id,
  eventName: m.eventName,
  aggregation: m.aggregation as Aggregation,
  property: m.aggregation === 'count' ? null : m.aggregationProperty,
  filter: storedFilter(m.filter),
});

export const findMeterOrThrow = (ctx: RequestContext, id: string) => orNotFound(db(ctx).meter.findUnique({ where: { id } }), 'Meter', id);

/** 409 `meter_name_taken`, saying when the holder is archived (it can be unarchived instead). */
async function assertNameFree(ctx: RequestContext, name: string, except?: string) {
  const holder = await db(ctx).meter.findFirst({ where: { name, ...(except ? { id: { not: except } } : {}) }, select: { id: true, status: true } });
  if (!holder) return;
  const archived = holder.status === 'archived';
  throw new AppError(
    'meter_name_taken',
    archived ? `The name ${name} is held by archived meter ${holder.id}; unarchive it, or choose another name` : `A meter named ${name} already exists (${holder.id})`,
    [{ path: ['name'], message: `is taken by meter ${holder.id}${archived ? ' (archived)' : ''}` }],
    archived ? { archived_holder: true, archived_holder_id: holder.id } : undefined,
  );
}

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === 'P2002';

/**
 * Summarizes the meter's events of the preview window from its raw events into its daily
 * rollup, which ingestion keeps from then on. Call with ingestion held (holdIngestion), taken
 * before the meter's row is written: an ingest in flight may update that row (`usageSeenAt`)
 * while holding the events table, so the other order could deadlock.
 */
async function startDailyRollup(ctx: RequestContext, meter: Meter): Promise<Meter> {
  const { from } = previewWindow(ctx.clock.now());
  await rebuildDailyRollup(ctx, definitionOf(meter), from);
  // What its name already received in periods still open counts, as a replay with `at` would.
  await refoldOpenPeriods(ctx, meter);
  return db(ctx).meter.update({ where: { id: meter.id }, data: { dailyRollupFrom: from } });
}

export async function createMeter(ctx: RequestContext, input: CreateMeterInput): Promise<Meter> {
  await assertNameFree(ctx, input.name);
  await holdIngestion(ctx);
  let created: Meter;
  try {
    created = await db(ctx).meter.create({
      data: {
        id: newId('meter'),
        name: input.name,
        eventName: input.event_name,
        aggregation: input.aggregation,
        aggregationProperty: input.aggregation === 'count' ? null : input.aggregation_property!,
        filter: (input.filter ?? MATCH_ALL) as unknown as Prisma.InputJsonObject,
        unitLabel: input.unit_label,
      },
    });
  } catch (err) {
    // Another request took the name between the check and the insert.
    if (isUniqueViolation(err)) await assertNameFree(ctx, input.name);
    throw err;
  }
  return startDailyRollup(ctx, created);
}

/** Meters newest first, archived ones only when asked (GraphQL reads it as a connection). */
export const metersListing = (ctx: RequestContext, includeArchived: boolean) => listing(db(ctx).meter, includeArchived ? {} : { status: 'active' }, { id: 'desc' });

export async function listMeters(ctx: RequestContext, input: ListMetersInput) {
  const where = input.include_archived ? {} : { status: 'active' };
  return cursorPage((args) => db(ctx).meter.findMany({ ...args, where: { ...where, ...args.where } }), input);
}

/**
 * A rename is always allowed; the definition (aggregation, its property, the filter) only while
 * the meter has folded no usage and no product that prices it was bought: changing it would
 * rewrite what recorded usage means.
 */
export async function updateMeter(ctx: RequestContext, input: UpdateMeterInput): Promise<Meter> {
  const meter = await findMeterOrThrow(ctx, input.id);
  const aggregation = input.aggregation ?? (meter.aggregation as Aggregation);
  const property = input.aggregation_property === undefined ? meter.aggregationProperty : input.aggregation_property;
  if (aggregation !== 'count' && !property) {
    throw new AppError('validation_failed', 'Validation failed', [{ path: ['aggregation_property'], message: `is required for the ${aggregation} aggregation (only count goes without)` }]);
  }
  const filter = input.filter ?? storedFilter(meter.filter);
  const redefined =
    aggregation !== meter.aggregation || (aggregation !== 'count' && property !== meter.aggregationProperty) || JSON.stringify(filter) !== JSON.stringify(storedFilter(meter.filter));
  if (redefined) {
    const bought = await db(ctx).usagePrice.findFirst({ where: { meterId: meter.id, product: { OR: [{ subscriptions: { some: {} } }, { orders: { some: {} } }] } }, select: { id: true } });
    if (meter.usageSeenAt || bought) {
      const field = input.aggregation !== undefined ? 'aggregation' : input.aggregation_property !== undefined ? 'aggregation_property' : 'filter';
      throw new AppError('meter_definition_locked', `Meter ${meter.id} ${meter.usageSeenAt ? 'has processed usage' : 'is priced by a product that was bought'}; its definition can no longer change (create a new meter instead)`, [
        { path: [field], message: 'is part of the definition, which is fixed once the meter has processed usage or been bought' },
      ]);
    }
  }
  if (input.name !== undefined && input.name !== meter.name) await assertNameFree(ctx, input.name, meter.id);
  // A rename changes nothing ingestion computes; a new definition is summarized again below.
  if (redefined) await holdIngestion(ctx);
  let updated: Meter;
  try {
    updated = await db(ctx).meter.update({
      where: { id: meter.id },
      data: {
        name: input.name ?? meter.name,
        aggregation,
        aggregationProperty: aggregation === 'count' ? null : property,
        filter: filter as unknown as Prisma.InputJsonObject,
      },
    });
  } catch (err) {
    if (isUniqueViolation(err) && input.name) await assertNameFree(ctx, input.name, meter.id);
    throw err;
  }
  // The rollup summarized the old definition.
  return redefined ? startDailyRollup(ctx, updated) : updated;
}

export async function archiveMeter(ctx: RequestContext, id: string): Promise<Meter> {
  const meter = await findMeterOrThrow(ctx, id);
  if (meter.status === 'archived') return meter;
  return db(ctx).meter.update({ where: { id }, data: { status: 'archived' } });
}

/**
 * Back to active. Events that arrived while it was archived were stored (and kept in its daily
 * rollup); the periods still open are replayed from the raw events, so they count again.
 */
export async function unarchiveMeter(ctx: RequestContext, id: string): Promise<Meter> {
  const meter = await findMeterOrThrow(ctx, id);
  if (meter.status === 'active') return meter;
  await holdIngestion(ctx);
  const updated = await db(ctx).meter.update({ where: { id }, data: { status: 'active' } });
  await refoldOpenPeriods(ctx, updated);
  return updated;
}

/**
 * Replays the meter's open periods from the raw events, for every customer with recent events
 * of its name. Call with ingestion held, so that no write in flight is missed.
 */
async function refoldOpenPeriods(ctx: RequestContext, meter: Meter): Promise<void> {
  const now = ctx.clock.now();
  // Open periods reach back at most one interval and the late window; look a little wider.
  const customers = await customersWithEvents(ctx, meter.eventName, addDays(now, -400));
  const periodOf = await meteringPeriods(ctx, customers, [meter.id]);
  const periods = customers.flatMap((customerId) => {
    // The period now, the one the late window still holds, the one before, and the one right
    // after (events sent ahead fold there); not further ahead, where a replay's date ranges
    // could overlap periods of another kind.
    const instants = [now, new Date(now.getTime() - LATE_EVENT_WINDOW_MS), addDays(now, -31), periodOf(customerId, meter.id, now).end];
    const open = instants.map((at) => periodOf(customerId, meter.id, at)).filter((p) => !p.final);
    return [...new Map(open.map((p) => [p.start.getTime(), { customerId, start: p.start, end: p.end }])).values()];
  });
  await refoldPeriods(ctx, definitionOf(meter), periods, now);
}

/**
 * Units a customer consumed through the meter in a billing period. Now: the projection's row
 * of the current period (one indexed read). At `at`: replayed from the raw events of the
 * period containing it, up to and including that instant.
 */
export async function consumedUnits(ctx: RequestContext, input: ConsumedUnitsInput) {
  const now = ctx.clock.now();
  const { meter, customerExists, subscriptions, recent } = await readConsumedInputs(ctx, input.id, input.customer_id, now);
  if (!meter) throw notFound('Meter', input.id);
  if (!customerExists) throw notFound('Customer', input.customer_id);
  const at = input.at ?? now;
  const period = periodsFrom(subscriptions, now)(input.customer_id, meter.id, at);
  if (input.at) {
    const replay = await aggregateEvents(ctx, definitionOf(meter), { from: period.start, to: new Date(Math.min(at.getTime() + 1, period.end.getTime())), customerId: input.customer_id });
    return { meterId: meter.id, customerId: input.customer_id, units: replay.units, period, updatedAt: null, asOf: input.at };
  }
  const found = currentRow(recent, period.start);
  const row = found === undefined ? await readProjection(ctx, definitionOf(meter), input.customer_id, period.start) : found;
  return { meterId: meter.id, customerId: input.customer_id, units: row?.units ?? '0', period, updatedAt: row?.updatedAt ?? null, asOf: undefined };
}

/** The newest events a preview reads at most; beyond it the oldest day of the window is incomplete. */
export const PREVIEW_SCAN_CAP = 100_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A definition dry-run over the last 7 whole UTC days, today included, future events
 * excluded: matched events, units, distinct customers, and the days oldest first, zero-filled.
 */
/** The preview's window: the last 7 whole UTC days, today included. */
function previewWindow(now: Date): { from: Date; today: Date } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { from: new Date(today - 6 * DAY_MS), today: new Date(today) };
}

/**
 * A definition dry-run over the last 7 whole UTC days, today included, future events
 * excluded: matched events, units, distinct customers, and the days oldest first, zero-filled.
 * An existing meter whose daily rollup covers the window is read from it, every event counted;
 * otherwise the newest PREVIEW_SCAN_CAP raw events are scanned.
 */
export async function preview(ctx: RequestContext, m: MeterDefinition & { id?: string; dailyRollupFrom?: Date | null }) {
  const now = ctx.clock.now();
  const { from, today: todayStart } = previewWindow(now);
  const today = todayStart.getTime();
  const result =
    m.id && m.dailyRollupFrom && m.dailyRollupFrom <= from
      ? await previewFromRollup(ctx, { ...m, id: m.id }, { from, today: todayStart, now })
      : await previewEvents(ctx, m, { from, to: new Date(now.getTime() + 1) }, PREVIEW_SCAN_CAP);
  const byDay = new Map(result.days.map((d) => [d.day, d]));
  const daily = Array.from({ length: 7 }, (_, i) => {
    const date = new Date(today - (6 - i) * DAY_MS).toISOString().slice(0, 10);
    const d = byDay.get(date);
    return { date, event_count: d?.events ?? 0, value: d?.units ?? '0' };
  });
  return { matched_events: result.totals.events, units: result.totals.units, distinct_customers: result.totals.customers, daily, skipped_non_numeric: result.totals.skipped, scan_capped: result.capped };
}

export const previewCandidate = (ctx: RequestContext, input: PreviewMeterInput) =>
  preview(ctx, { eventName: input.event_name, aggregation: input.aggregation, property: input.aggregation === 'count' ? null : input.aggregation_property!, filter: input.filter ?? MATCH_ALL });

export async function previewExisting(ctx: RequestContext, id: string) {
  const meter = await findMeterOrThrow(ctx, id);
  return preview(ctx, { ...definitionOf(meter), dailyRollupFrom: meter.dailyRollupFrom });
}

