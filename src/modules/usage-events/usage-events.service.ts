import type { UsageEvent } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { listing } from '../../db/listing.js';
import { readIngestInputs, storeAndFold, type FoldTarget, type IngestInputs, type NewUsageEvent } from '../../db/usage.js';
import { AppError, dottedPath, type FieldIssue } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { definitionOf, findMeterOrThrow } from '../meters/meters.service.js';
import { readsAsNumber } from '../meters/meter-filter.js';
import { periodsFrom } from '../meters/usage-periods.js';
import { usageEventSchema, type BatchInput, type ListUsageEventsInput, type UsageEventInput } from './usage-events.schemas.js';

export type WarningCode = 'no_matching_meter' | 'meter_archived' | 'timestamp_outside_late_window';
export interface Warning {
  index: number;
  code: WarningCode;
  message: string;
}

/** Per event of a batch: valid and resolved, or why not. */
type Checked =
  | { index: number; ok: true; event: UsageEventInput; customerId: string; key: string | undefined }
  | { index: number; ok: false; issue: FieldIssue; customerId: string | null; key: string | undefined };

/**
 * Validates every event of the batch and reads what planning it needs (its customers, the
 * meters of its names, the subscriptions behind their periods) in one statement.
 */
async function checkBatch(ctx: RequestContext, raw: unknown[]): Promise<{ checked: Checked[]; inputs: IngestInputs }> {
  const parsed = raw.map((r) => usageEventSchema.safeParse(r));
  const good = parsed.flatMap((p) => (p.success ? [p.data] : []));
  const inputs = await readIngestInputs(ctx, {
    customerIds: [...new Set(good.flatMap((e) => (e.customer_id ? [e.customer_id] : [])))],
    externalIds: [...new Set(good.flatMap((e) => (e.external_customer_id ? [e.external_customer_id] : [])))],
    eventNames: [...new Set(good.map((e) => e.name))],
  });
  const known = new Set(inputs.customers.map((c) => c.id));
  const external = new Map(inputs.customers.flatMap((c) => (c.externalId ? [[c.externalId, c.id] as const] : [])));
  const checked = parsed.map((p, index): Checked => {
    const key = typeof (raw[index] as { event_id?: unknown })?.event_id === 'string' ? ((raw[index] as { event_id: string }).event_id.trim() || undefined) : undefined;
    if (!p.success) {
      const first = p.error.issues[0]!;
      return { index, ok: false, key, customerId: null, issue: { path: ['events', index, ...first.path.filter((s): s is string | number => typeof s !== 'symbol')], message: first.message } };
    }
    const e = p.data;
    const customerId = e.customer_id !== undefined ? (known.has(e.customer_id) ? e.customer_id : null) : (external.get(e.external_customer_id!) ?? null);
    if (!customerId) {
      const field = e.customer_id !== undefined ? 'customer_id' : 'external_customer_id';
      return { index, ok: false, key: e.event_id, customerId: null, issue: { path: ['events', index, field], message: `no customer of this store has ${field === 'customer_id' ? 'the id' : 'the external id'} ${e.customer_id ?? e.external_customer_id}` } };
    }
    return { index, ok: true, event: e, customerId, key: e.event_id };
  });
  return { checked, inputs };
}

/** The meters by event name (active and archived), oldest first, for matching and warnings. */
function byEventName<M extends { eventName: string }>(meters: readonly M[]): Map<string, M[]> {
  const out = new Map<string, M[]>();
  for (const m of meters) out.set(m.eventName, [...(out.get(m.eventName) ?? []), m]);
  return out;
}

interface PlannedEvent {
  index: number;
  key: string;
  name: string;
  customerId: string;
  timestamp: Date;
  properties: Record<string, unknown>;
}

interface Plan {
  warnings: Warning[];
  targets: FoldTarget[];
  /** Extension: events whose aggregation property is not a number, which a numeric meter skips. */
  valueWarnings: { index: number; meter_id: string; message: string }[];
  /** Per event, the active meters it feeds. */
  matched: Map<number, string[]>;
}

/** What each event would feed: the active meters of its name, in the period its timestamp falls in. */
function plan(ctx: RequestContext, inputs: IngestInputs, events: readonly PlannedEvent[]): Plan {
  const byName = byEventName(inputs.meters);
  // Per event name once, not per event: its meters, the active ones and their ids.
  const feeds = new Map([...byName].map(([name, all]) => {
    const live = all.filter((m) => m.status === 'active');
    return [name, { all, live, ids: live.map((m) => m.id) }] as const;
  }));
  const none = { all: [], live: [], ids: [] };
  const periodOf = periodsFrom(inputs.subscriptions, ctx.clock.now());
  const out: Plan = { warnings: [], targets: [], valueWarnings: [], matched: new Map() };
  for (const e of events) {
    const { all, live, ids } = feeds.get(e.name) ?? none;
    out.matched.set(e.index, ids);
    if (!all.length) {
      out.warnings.push({ index: e.index, code: 'no_matching_meter', message: `No meter consumes events named ${e.name}; the event is stored, and a meter created for the name counts it in the billing periods still open` });
      continue;
    }
    if (!live.length) {
      out.warnings.push({ index: e.index, code: 'meter_archived', message: `Only archived meters (${all.map((m) => m.id).join(', ')}) consume events named ${e.name}; unarchive one to resume aggregation` });
      continue;
    }
    let open = 0;
    for (const m of live) {
      const period = periodOf(e.customerId, m.id, e.timestamp);
      if (period.final) continue;
      open++;
      out.targets.push({ key: e.key, meterId: m.id, customerId: e.customerId, periodStart: period.start, periodEnd: period.end });
      const property = m.aggregationProperty;
      if (['sum', 'average', 'min', 'max'].includes(m.aggregation) && property && !readsAsNumber(e.properties[property])) {
        out.valueWarnings.push({ index: e.index, meter_id: m.id, message: `properties.${property} is ${e.properties[property] === undefined ? 'missing' : 'not a number'}; meter ${m.id} (${m.aggregation}) skips this event's value` });
      }
    }
    if (!open) {
      out.warnings.push({ index: e.index, code: 'timestamp_outside_late_window', message: `${e.timestamp.toISOString()} falls in a billing period that is already final; the event is stored but changes no totals` });
    }
  }
  return out;
}

/** How often an ingest plans again when meters keep changing under it before it gives up. */
const PLAN_ATTEMPTS = 5;

/**
 * Ingests a batch all or nothing: every event is validated and its customer resolved before
 * anything is written (422 naming `events[i].field`). Each event is stored under its trimmed
 * `event_id` (generated when absent), once per store and environment forever: a repeated id,
 * in the batch or from any earlier or concurrent batch, records nothing. New events are folded
 * into the consumed-units projection and the meters' daily rollups in the same statement that
 * stores them.
 */
export async function ingest(ctx: RequestContext, input: BatchInput) {
  let { checked, inputs } = await checkBatch(ctx, input.events);
  const invalid = checked.filter((c): c is Extract<Checked, { ok: false }> => !c.ok);
  if (invalid.length) throw new AppError('unprocessable_input', 'The batch was rejected: no event was ingested', invalid.map((c) => c.issue));
  const now = ctx.clock.now();
  const firstOf = new Map<string, number>();
  const events: (NewUsageEvent & { index: number })[] = [];
  const eventIds = checked.map((c) => {
    const { event, customerId } = c as Extract<Checked, { ok: true }>;
    const id = newId('usageEvent');
    const key = event.event_id ?? id;
    // Two entries whose ids differ only by surrounding whitespace are one event: the first wins.
    if (!firstOf.has(key)) {
      firstOf.set(key, c.index);
      events.push({ index: c.index, id, key, eventName: event.name, customerId, properties: event.properties, timestamp: event.timestamp ?? now });
    }
    return key;
  });
  const planned = events.map((e) => ({ index: e.index, key: e.key, name: e.eventName, customerId: e.customerId, timestamp: e.timestamp, properties: e.properties }));
  const eventNames = [...new Set(events.map((e) => e.eventName))];
  for (let attempt = 1; ; attempt++) {
    const { warnings, targets, valueWarnings } = plan(ctx, inputs, planned);
    const meters = new Map(inputs.meters.map((m) => [m.id, definitionOf(m)]));
    const rollups = inputs.meters.filter((m) => m.dailyRollupFrom !== null).map((m) => ({ meterId: m.id }));
    const versions = inputs.meters.map((m) => m.version);
    const { fresh } = await storeAndFold(ctx, now, { events, targets, rollups, meters, versions, eventNames });
    if (fresh) {
      // A duplicate entry of the batch warns as its first occurrence does.
      const warned = checked.flatMap((c) => {
        const first = firstOf.get(eventIds[c.index]!)!;
        return warnings.filter((w) => w.index === first).map((w) => ({ ...w, index: c.index }));
      });
      return { accepted: checked.length, event_ids: eventIds, ...(warned.length ? { warnings: warned } : {}), ...(valueWarnings.length ? { value_warnings: valueWarnings } : {}) };
    }
    if (attempt === PLAN_ATTEMPTS) throw new AppError('change_in_progress', 'The meters of these events kept changing while the batch was ingested; nothing was stored, send it again');
    // A meter of these names changed between the plan and the write: plan again on what is there now.
    ({ inputs } = await checkBatch(ctx, input.events));
  }
}

/**
 * What ingest would do with the batch, storing nothing: per event its validity (invalid events
 * are reported in place), the id it would be stored under, whether it would deduplicate, the
 * active meters it would feed and the warnings.
 */
export async function previewIngest(ctx: RequestContext, input: BatchInput) {
  const { checked, inputs } = await checkBatch(ctx, input.events);
  const now = ctx.clock.now();
  const valid = checked.filter((c): c is Extract<Checked, { ok: true }> => c.ok);
  const keys = valid.flatMap((c) => (c.key ? [c.key] : []));
  const stored = new Set(keys.length ? (await db(ctx).usageEvent.findMany({ where: { idempotencyKey: { in: keys } }, select: { idempotencyKey: true } })).map((e) => e.idempotencyKey) : []);
  const { warnings, matched } = plan(
    ctx,
    inputs,
    valid.map((c) => ({ index: c.index, key: c.key ?? `preview:${c.index}`, name: c.event.name, customerId: c.customerId, timestamp: c.event.timestamp ?? now, properties: c.event.properties })),
  );
  const seen = new Set<string>();
  const events = checked.map((c) => {
    if (!c.ok) {
      return { valid: false, event_id: null, customer_id: null, error: { code: 'unprocessable_input', message: c.issue.message, param: dottedPath(c.issue.path) }, duplicate: null, matched_meters: [], warnings: [] };
    }
    const duplicate = c.key !== undefined && (stored.has(c.key) || seen.has(c.key));
    if (c.key) seen.add(c.key);
    return {
      valid: true,
      event_id: c.key ?? null,
      customer_id: c.customerId,
      error: null,
      duplicate,
      matched_meters: matched.get(c.index) ?? [],
      warnings: warnings.filter((w) => w.index === c.index).map(({ code, message }) => ({ code, message })),
    };
  });
  return { valid: checked.every((c) => c.ok), events };
}

/** The usage events of an event name, a customer or an event_id (each optional). */
const usageEventsWhere = (f: { eventName?: string; customerId?: string; reference?: string }) => ({
  ...(f.eventName ? { eventName: f.eventName } : {}),
  ...(f.customerId ? { customerId: f.customerId } : {}),
  ...(f.reference ? { idempotencyKey: f.reference } : {}),
});

/** Usage events, oldest first (ingestion order), forward pages only: events are append-only. */
export async function listUsageEvents(ctx: RequestContext, input: ListUsageEventsInput) {
  const eventName = input.meter_id ? (await findMeterOrThrow(ctx, input.meter_id)).eventName : undefined;
  const rows = await db(ctx).usageEvent.findMany({
    where: { ...usageEventsWhere({ eventName, customerId: input.customer_id, reference: input.reference }), ...(input.starting_after ? { id: { gt: input.starting_after } } : {}) },
    orderBy: { id: 'asc' },
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const names = [...new Set(page.map((e) => e.eventName))];
  const byName = byEventName(names.length ? await db(ctx).meter.findMany({ where: { eventName: { in: names } }, orderBy: { id: 'asc' } }) : []);
  return { data: page.map((e) => ({ event: e, matched: (byName.get(e.eventName) ?? []).filter((m) => m.status === 'active').map((m) => m.id) })), has_more: rows.length > input.limit };
}

export type ListedUsageEvent = { event: UsageEvent; matched: string[] };

/** Usage events oldest first, of one customer or one event_id (GraphQL reads it as a connection). */
export const usageEventsListing = (ctx: RequestContext, filter: { customerId?: string; reference?: string }) => listing(db(ctx).usageEvent, usageEventsWhere(filter), { id: 'asc' });

/** The raw events of a meter's name, oldest first, with a caller's selection (GraphQL). */
export const meterEventsSelecting = (ctx: RequestContext, eventName: string, selection: object) =>
  db(ctx).usageEvent.findMany({ ...selection, where: { eventName }, orderBy: { id: 'asc' } });
