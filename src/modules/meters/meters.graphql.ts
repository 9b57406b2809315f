import { apiEnum, builder, ModeEnum } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { execute } from '../../core/operation.js';
import { FILTER_OPERATORS, storedFilter } from './meter-filter.js';
import { archiveMeterOp, consumedUnitsOp, createMeterOp, previewExistingMeterOp, previewMeterOp, unarchiveMeterOp, updateMeterOp } from './meters.operations.js';
import { AGGREGATIONS } from './meters.schemas.js';
import type { serializeConsumedUnits } from './meters.serializer.js';
import { metersListing, type preview } from './meters.service.js';

const AggregationEnum = apiEnum('MeterAggregation', AGGREGATIONS, 'How matching events become units: count, or the sum, average, min, max or number of distinct values of a property');
const MeterStatusEnum = apiEnum('MeterStatus', ['active', 'archived'] as const, '`archived`: no new usage accrues; never deleted');
const OperatorEnum = apiEnum('MeterFilterOperator', FILTER_OPERATORS, 'Comparison of an event property with the clause value, both auto-parsed (number, then boolean, then string)');
const ConjunctionEnum = apiEnum('MeterFilterConjunction', ['and', 'or'] as const, 'How the clauses combine');

type Clause = { property: string; operator: (typeof FILTER_OPERATORS)[number]; value: string | number | boolean };
const ClauseRef = builder.objectRef<Clause>('MeterFilterClause').implement({
  fields: (t) => ({
    property: t.exposeString('property', { description: "A key of the event's properties" }),
    operator: t.field({ type: OperatorEnum, resolve: (c) => c.operator }),
    value: t.field({ type: 'JSON', description: 'As stored after parsing: a number, a boolean or a string', resolve: (c) => c.value }),
  }),
});
const FilterRef = builder.objectRef<{ conjunction: 'and' | 'or'; clauses: Clause[] }>('MeterFilter').implement({
  description: 'Which events of the name the meter counts; no clauses: all of them',
  fields: (t) => ({ conjunction: t.field({ type: ConjunctionEnum, resolve: (f) => f.conjunction }), clauses: t.field({ type: [ClauseRef], resolve: (f) => f.clauses }) }),
});

type PreviewBody = Awaited<ReturnType<typeof preview>>;
const PreviewDayRef = builder.objectRef<PreviewBody['daily'][number]>('MeterPreviewDay').implement({
  fields: (t) => ({
    date: t.exposeString('date', { description: 'UTC calendar day, YYYY-MM-DD' }),
    eventCount: t.int({ resolve: (d) => d.event_count }),
    value: t.string({ description: 'The aggregation over this day alone, as decimal text', resolve: (d) => d.value }),
  }),
});
const PreviewRef = builder.objectRef<PreviewBody>('MeterPreview').implement({
  description: 'A definition dry-run over the last 7 whole UTC days, today included, future events excluded; nothing is written',
  fields: (t) => ({
    matchedEvents: t.int({ resolve: (p) => p.matched_events }),
    units: t.string({ description: 'The aggregation over the window, as decimal text', resolve: (p) => p.units }),
    distinctCustomers: t.int({ resolve: (p) => p.distinct_customers }),
    daily: t.field({ type: [PreviewDayRef], description: 'Oldest first, zero-filled', resolve: (p) => p.daily }),
    skippedNonNumeric: t.int({ description: 'Matching events whose property was not a number (sum, average, min and max skip them)', resolve: (p) => p.skipped_non_numeric }),
    scanCapped: t.boolean({ description: 'The scan reached its cap (100,000 newest events): the oldest day may be incomplete', resolve: (p) => p.scan_capped }),
  }),
});

type ConsumedBody = ReturnType<typeof serializeConsumedUnits>;
const ConsumedRef = builder.objectRef<ConsumedBody>('MeterConsumedUnits').implement({
  description: "A customer's units through a meter in a billing period",
  fields: (t) => ({
    units: t.string({ resolve: (c) => c.units }),
    periodStart: t.field({ type: 'DateTime', resolve: (c) => new Date(c.period_start) }),
    periodEnd: t.field({ type: 'DateTime', description: 'Exclusive', resolve: (c) => new Date(c.period_end) }),
    updatedAt: t.field({ type: 'DateTime', nullable: true, description: 'When the projection last moved; null for a replay at an instant', resolve: (c) => (c.updated_at ? new Date(c.updated_at) : null) }),
    asOf: t.field({ type: 'DateTime', nullable: true, resolve: (c) => ('as_of' in c && c.as_of ? new Date(c.as_of) : null) }),
  }),
});

builder.prismaNode('Meter', {
  id: { field: 'id' },
  nullable: true,
  description: 'How a stream of usage events becomes billable units',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name', { description: 'Unique in the store, archived meters included' }),
    eventName: t.exposeString('eventName'),
    aggregation: t.field({ type: AggregationEnum, select: { aggregation: true }, resolve: (m) => m.aggregation as (typeof AGGREGATIONS)[number] }),
    aggregationProperty: t.exposeString('aggregationProperty', { nullable: true }),
    filter: t.field({ type: FilterRef, select: { filter: true }, resolve: (m) => storedFilter(m.filter) }),
    unitLabel: t.exposeString('unitLabel', { description: 'Display unit; also the credit bucket prepaid usage settles from' }),
    status: t.field({ type: MeterStatusEnum, select: { status: true }, resolve: (m) => m.status as 'active' | 'archived' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    preview: t.field({
      type: PreviewRef,
      description: 'This meter dry-run over the last 7 UTC days',
      select: { id: true },
      resolve: async (m, _args, ctx) => (await execute(ctx.core, previewExistingMeterOp, { id: m.id })).body as PreviewBody,
    }),
    consumedUnits: t.field({
      type: ConsumedRef,
      description: "A customer's units in the current billing period (the projection), or replayed at an instant",
      args: { customerId: t.arg.id({ required: true }), at: t.arg({ type: 'DateTime', required: false }) },
      select: { id: true },
      resolve: async (m, args, ctx) =>
        (await execute(ctx.core, consumedUnitsOp, { id: m.id, customer_id: String(args.customerId), ...(args.at ? { at: args.at.toISOString() } : {}) })).body as ConsumedBody,
    }),
  }),
});

listQuery('meters', {
  type: 'Meter',
  description: 'Meters, newest first; archived ones only when asked',
  args: (arg) => ({ includeArchived: arg.boolean({ required: false, defaultValue: false }) }),
  listing: (ctx, args) => metersListing(ctx, args.includeArchived ?? false),
});

const FilterInput = builder.inputType('MeterFilterInput', {
  fields: (t) => ({
    conjunction: t.field({ type: ConjunctionEnum, required: false, description: 'Default and' }),
    clauses: t.field({
      type: [builder.inputType('MeterFilterClauseInput', { fields: (f) => ({ property: f.string({ required: true }), operator: f.field({ type: OperatorEnum, required: true }), value: f.field({ type: 'JSON', required: true, description: 'A string, number or boolean' }) }) })],
      required: true,
    }),
  }),
});

builder.queryField('meterPreview', (t) =>
  t.field({
    type: PreviewRef,
    description: 'A candidate meter definition dry-run over the last 7 UTC days; nothing is created',
    args: {
      eventName: t.arg.string({ required: true }),
      aggregation: t.arg({ type: AggregationEnum, required: true }),
      aggregationProperty: t.arg.string({ required: false }),
      filter: t.arg({ type: FilterInput, required: false }),
    },
    resolve: async (_root, args, ctx) => (await execute(ctx.core, previewMeterOp, toApiInput(args))).body as PreviewBody,
  }),
);

const MeterPayload = payloadType('MeterPayload', 'meter', 'Meter', 'The meter');
const MeterIdInput = (name: string) => builder.inputType(name, { fields: (t) => ({ id: t.id({ required: true, description: 'mtr_…' }) }) });

operationMutation('createMeter', {
  op: createMeterOp,
  input: builder.inputType('CreateMeterInput', {
    fields: (t) => ({
      name: t.string({ required: true }),
      eventName: t.string({ required: true }),
      aggregation: t.field({ type: AggregationEnum, required: true }),
      aggregationProperty: t.string({ required: false, description: 'Required for every aggregation but count' }),
      filter: t.field({ type: FilterInput, required: false }),
      unitLabel: t.string({ required: true }),
    }),
  }),
  payload: MeterPayload,
  description: 'Defines a meter; the name is unique in the store (meter_name_taken)',
});

operationMutation('updateMeter', {
  op: updateMeterOp,
  input: builder.inputType('UpdateMeterInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      name: t.string({ required: false }),
      aggregation: t.field({ type: AggregationEnum, required: false }),
      aggregationProperty: t.string({ required: false, description: 'null clears it (count only)' }),
      filter: t.field({ type: FilterInput, required: false }),
    }),
  }),
  payload: MeterPayload,
  description: 'Renames a meter (always), or changes its definition (only before it processed usage or was bought: meter_definition_locked)',
});

operationMutation('archiveMeter', { op: archiveMeterOp, input: MeterIdInput('ArchiveMeterInput'), payload: MeterPayload, description: 'Stops new usage accruing; the meter stays, with what it recorded' });
operationMutation('unarchiveMeter', { op: unarchiveMeterOp, input: MeterIdInput('UnarchiveMeterInput'), payload: MeterPayload, description: 'Resumes the meter; open periods are replayed from the raw events' });
