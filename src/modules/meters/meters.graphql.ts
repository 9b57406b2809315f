import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { execute } from '../../core/operation.js';
import { FILTER_OPERATORS, storedFilter } from './meter-filter.js';
import { archiveMeterOp, consumedUnitsOp, createMeterOp, previewExistingMeterOp, previewMeterOp, unarchiveMeterOp, updateMeterOp } from './meters.operations.js';
import { AGGREGATIONS } from './meters.schemas.js';
import type { serializeConsumedUnits } from './meters.serializer.js';
import { metersListing, type preview } from './meters.service.js';

const AggregationEnum = apiEnum('MeterAggregation', AGGREGATIONS, 'How matching events become units: count, or the sum, average, min, max or number of distinct values of a property', {
  count: 'The number of matching events',
  average: 'The mean of the property, rounded to 12 decimal places',
  unique: 'The number of distinct values of the property',
});
const MeterStatusEnum = apiEnum('MeterStatus', ['active', 'archived'] as const, '`archived`: no new usage accrues; never deleted');
const OperatorEnum = apiEnum('MeterFilterOperator', FILTER_OPERATORS, 'Comparison of an event property with the clause value, both auto-parsed (number, then boolean, then string)');
const ConjunctionEnum = apiEnum('MeterFilterConjunction', ['and', 'or'] as const, 'How the clauses combine');

type Clause = { property: string; operator: (typeof FILTER_OPERATORS)[number]; value: string | number | boolean };
const ClauseRef = builder.objectRef<Clause>('MeterFilterClause').implement({
  description: 'One condition on an event property',
  fields: (t) => ({
    property: t.exposeString('property', { description: "A key of the event's properties" }),
    operator: t.field({ type: OperatorEnum, description: 'How the property compares with value', resolve: (c) => c.operator }),
    value: t.field({ type: 'JSON', description: 'As stored after parsing: a number, a boolean or a string', resolve: (c) => c.value }),
  }),
});
const FilterRef = builder.objectRef<{ conjunction: 'and' | 'or'; clauses: Clause[] }>('MeterFilter').implement({
  description: 'Which events of the name the meter counts; no clauses: all of them',
  fields: (t) => ({
    conjunction: t.field({ type: ConjunctionEnum, description: 'and: every clause must hold; or: any one', resolve: (f) => f.conjunction }),
    clauses: t.field({ type: [ClauseRef], description: 'The conditions; empty: every event of the name', resolve: (f) => f.clauses }),
  }),
});

type PreviewBody = Awaited<ReturnType<typeof preview>>;
const PreviewDayRef = builder.objectRef<PreviewBody['daily'][number]>('MeterPreviewDay').implement({
  description: 'One UTC day of a meter preview',
  fields: (t) => ({
    date: t.exposeString('date', { description: 'UTC calendar day, YYYY-MM-DD' }),
    eventCount: t.int({ description: 'Matching events that day', resolve: (d) => d.event_count }),
    value: t.string({ description: 'The aggregation over this day alone, as decimal text', resolve: (d) => d.value }),
  }),
});
const PreviewRef = builder.objectRef<PreviewBody>('MeterPreview').implement({
  description: 'A definition dry-run over the last 7 whole UTC days, today included, future events excluded; nothing is written',
  fields: (t) => ({
    matchedEvents: t.int({ description: 'Events in the window the definition matches', resolve: (p) => p.matched_events }),
    units: t.string({ description: 'The aggregation over the window, as decimal text', resolve: (p) => p.units }),
    distinctCustomers: t.int({ description: 'Customers with matching events in the window', resolve: (p) => p.distinct_customers }),
    daily: t.field({ type: [PreviewDayRef], description: 'Oldest first, zero-filled', resolve: (p) => p.daily }),
    skippedNonNumeric: t.int({ description: 'Matching events whose property was not a number (sum, average, min and max skip them)', resolve: (p) => p.skipped_non_numeric }),
    scanCapped: t.boolean({ description: 'The scan reached its cap (100,000 newest events): the oldest day may be incomplete', resolve: (p) => p.scan_capped }),
  }),
});

type ConsumedBody = ReturnType<typeof serializeConsumedUnits>;
const ConsumedRef = builder.objectRef<ConsumedBody>('MeterConsumedUnits').implement({
  description: "A customer's units through a meter in a billing period",
  fields: (t) => ({
    units: t.string({ description: 'Units consumed in the period (up to asOf, for a replay), as exact decimal text', resolve: (c) => c.units }),
    periodStart: t.field({ type: 'DateTime', description: 'Start of the billing period: the customer’s subscription period pricing the meter, else the UTC calendar month', resolve: (c) => new Date(c.period_start) }),
    periodEnd: t.field({ type: 'DateTime', description: 'Exclusive', resolve: (c) => new Date(c.period_end) }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the projection last moved; null for a replay at an instant', resolve: (c) => (c.updated_at ? new Date(c.updated_at) : null) }),
    asOf: t.field({ type: 'DateTime', nullable: true, description: 'The instant replayed (consumedUnits `at`); null for the current units', resolve: (c) => ('as_of' in c && c.as_of ? new Date(c.as_of) : null) }),
  }),
});

builder.prismaNode('Meter', {
  id: { field: 'id', description: 'The /v1 id (mtr_…)' },
  nullable: true,
  description: 'How a stream of usage events becomes billable units',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { description: 'Unique in the store, archived meters included' }),
    eventName: t.exposeString('eventName', { description: 'Usage events of this name feed the meter' }),
    aggregation: t.field({ type: AggregationEnum, description: 'How matching events become units', select: { aggregation: true }, resolve: (m) => m.aggregation as (typeof AGGREGATIONS)[number] }),
    aggregationProperty: t.exposeString('aggregationProperty', { nullable: true, description: 'The event property aggregated; null for count' }),
    filter: t.field({ type: FilterRef, description: 'Which events of the name count', select: { filter: true }, resolve: (m) => storedFilter(m.filter) }),
    unitLabel: t.exposeString('unitLabel', { description: 'Display unit; also the credit bucket prepaid usage settles from' }),
    status: t.field({ type: MeterStatusEnum, description: 'Active, or archived (no new usage accrues)', select: { status: true }, resolve: (m) => m.status as 'active' | 'archived' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the meter was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the meter last changed' }),
    preview: t.field({
      type: PreviewRef,
      description: 'This meter dry-run over the last 7 UTC days',
      select: { id: true },
      resolve: async (m, _args, ctx) => (await execute(ctx.core, previewExistingMeterOp, { id: m.id })).body as PreviewBody,
    }),
    consumedUnits: t.field({
      type: ConsumedRef,
      description: "A customer's units in the current billing period (the projection), or replayed at an instant",
      args: {
        customerId: t.arg.id({ required: true, description: 'The customer (cust_…)' }),
        at: t.arg({ type: 'DateTime', required: false, description: 'Replay the raw events of the period containing this instant, up to it; default: the current units' }),
      },
      select: { id: true },
      resolve: async (m, args, ctx) =>
        (await execute(ctx.core, consumedUnitsOp, { id: m.id, customer_id: String(args.customerId), ...(args.at ? { at: args.at.toISOString() } : {}) })).body as ConsumedBody,
    }),
  }),
});

listQuery('meters', {
  type: 'Meter',
  description: 'Meters, newest first; archived ones only when asked',
  args: (arg) => ({ includeArchived: arg.boolean({ required: false, defaultValue: false, description: 'Include archived meters' }) }),
  listing: (ctx, args) => metersListing(ctx, args.includeArchived ?? false),
});

const FilterInput = builder.inputType('MeterFilterInput', {
  description: 'Which events of the name a meter counts; no clauses: all of them',
  fields: (t) => ({
    conjunction: t.field({ type: ConjunctionEnum, required: false, description: 'Default and' }),
    clauses: t.field({
      description: 'The conditions; empty: every event of the name',
      type: [
        builder.inputType('MeterFilterClauseInput', {
          description: 'One condition on an event property',
          fields: (f) => ({
            property: f.string({ required: true, description: "A key of the event's properties" }),
            operator: f.field({ type: OperatorEnum, required: true, description: 'How the property compares with value' }),
            value: f.field({ type: 'JSON', required: true, description: 'A string, number or boolean' }),
          }),
        }),
      ],
      required: true,
    }),
  }),
});

builder.queryField('meterPreview', (t) =>
  t.field({
    type: PreviewRef,
    description: 'A candidate meter definition dry-run over the last 7 UTC days; nothing is created',
    args: {
      eventName: t.arg.string({ required: true, description: 'Usage events of this name feed it' }),
      aggregation: t.arg({ type: AggregationEnum, required: true, description: 'How matching events become units' }),
      aggregationProperty: t.arg.string({ required: false, description: 'The event property aggregated; required for every aggregation but count' }),
      filter: t.arg({ type: FilterInput, required: false, description: 'Which events of the name count; default all' }),
    },
    resolve: async (_root, args, ctx) => (await execute(ctx.core, previewMeterOp, toApiInput(args))).body as PreviewBody,
  }),
);

const MeterPayload = payloadType('MeterPayload', 'meter', 'Meter', 'The meter');
const MeterIdInput = (name: string) => builder.inputType(name, { description: 'The meter to act on', fields: (t) => ({ id: t.id({ required: true, description: 'mtr_…' }) }) });

operationMutation('createMeter', {
  op: createMeterOp,
  input: builder.inputType('CreateMeterInput', {
    description: 'A new meter',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Unique in the store, archived meters included' }),
      eventName: t.string({ required: true, description: 'Usage events of this name feed it' }),
      aggregation: t.field({ type: AggregationEnum, required: true, description: 'How matching events become units' }),
      aggregationProperty: t.string({ required: false, description: 'Required for every aggregation but count' }),
      filter: t.field({ type: FilterInput, required: false, description: 'Which events of the name count; default all' }),
      unitLabel: t.string({ required: true, description: 'Display unit (tokens, calls); prepaid usage settles from the credit bucket of this unit label' }),
    }),
  }),
  payload: MeterPayload,
  description: 'Defines a meter; the name is unique in the store (meter_name_taken)',
});

operationMutation('updateMeter', {
  op: updateMeterOp,
  input: builder.inputType('UpdateMeterInput', {
    description: 'A new name, or a new definition for a meter that has not counted usage yet',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The meter (mtr_…)' }),
      name: t.string({ required: false, description: 'A new name, unique in the store; always allowed' }),
      aggregation: t.field({ type: AggregationEnum, required: false, description: 'A new aggregation (definition change)' }),
      aggregationProperty: t.string({ required: false, description: 'A new property (definition change); a count meter has none, whatever is sent' }),
      filter: t.field({ type: FilterInput, required: false, description: 'A new filter (definition change)' }),
    }),
  }),
  payload: MeterPayload,
  description: 'Renames a meter (always), or changes its definition (only before it processed usage or was bought: meter_definition_locked)',
});

operationMutation('archiveMeter', { op: archiveMeterOp, input: MeterIdInput('ArchiveMeterInput'), payload: MeterPayload, description: 'Stops new usage accruing; the meter stays, with what it recorded' });
operationMutation('unarchiveMeter', { op: unarchiveMeterOp, input: MeterIdInput('UnarchiveMeterInput'), payload: MeterPayload, description: 'Resumes the meter; open periods are replayed from the raw events' });
