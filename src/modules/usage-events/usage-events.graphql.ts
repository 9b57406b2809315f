import { builder } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { payloadOf, USER_ERRORS_DESCRIPTION, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import { execute } from '../../core/operation.js';
import { ingestEventsOp, previewEventsOp } from './usage-events.operations.js';
import { meterEventsSelecting, usageEventsListing, type ingest, type previewIngest } from './usage-events.service.js';

builder.prismaObject('UsageEvent', {
  description: 'A usage event as ingested: append-only',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (uev_…)' }),
    eventId: t.exposeString('idempotencyKey', { description: 'The sender’s event_id (trimmed), or the one generated at ingest' }),
    name: t.exposeString('eventName', { description: 'The event name; meters of this eventName count it' }),
    properties: t.expose('properties', { type: 'JSON', description: 'The sender’s key-value pairs, as ingested' }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the usage happened, on the sender’s clock' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was ingested' }),
    customer: t.relation('customer', { description: 'Whose usage it is' }),
  }),
});

builder.prismaObjectFields('Customer', (t) => ({
  usageEvents: t.relatedConnection('usageEvents', { cursor: 'id', totalCount: true, description: "The customer's usage events, oldest first", query: { orderBy: { id: 'asc' } } }),
}));

builder.prismaObjectField('Meter', 'usageEvents', (t) =>
  t.prismaConnection({
    type: 'UsageEvent',
    cursor: 'id',
    description: 'Raw events of the name this meter consumes, oldest first (the filter is not applied)',
    resolve: (query, meter, _args, ctx) => meterEventsSelecting(ctx.core, meter.eventName, query),
  }),
);

listQuery('usageEvents', {
  type: 'UsageEvent',
  description: 'Usage events, oldest first, optionally of one customer or one event_id',
  args: (arg) => ({
    customerId: arg.id({ required: false, description: 'Only this customer’s events (cust_…)' }),
    reference: arg.string({ required: false, description: 'An event_id' }),
  }),
  listing: (ctx, args) => usageEventsListing(ctx, { customerId: args.customerId ? String(args.customerId) : undefined, reference: args.reference ?? undefined }),
});

const UsageEventInput = builder.inputType('UsageEventInput', {
  description: 'One usage event: who used what, and when',
  fields: (t) => ({
    name: t.string({ required: true, description: 'The event name; meters of this eventName count it' }),
    customerId: t.id({ required: false, description: 'Exactly one of customerId and externalCustomerId' }),
    externalCustomerId: t.string({ required: false, description: 'The customer by your externalId, instead of customerId' }),
    eventId: t.string({ required: false, description: 'Your idempotency key: a repeated one records nothing' }),
    timestamp: t.field({ type: 'DateTime', required: false, description: 'Default: now' }),
    properties: t.field({ type: 'JSON', required: false, description: 'At most 50 keys' }),
  }),
});

type IngestBody = Awaited<ReturnType<typeof ingest>>;
type PreviewBody = Awaited<ReturnType<typeof previewIngest>>;

const WarningRef = builder.objectRef<{ index?: number; code: string; message: string }>('UsageEventWarning').implement({
  description: 'An event was stored (or would be) but counts toward no open period of an active meter',
  fields: (t) => ({
    index: t.int({ nullable: true, description: 'The event’s position in the batch', resolve: (w) => w.index ?? null }),
    code: t.exposeString('code', { description: 'no_matching_meter, meter_archived or timestamp_outside_late_window' }),
    message: t.exposeString('message', { description: 'What it means for the event, in English' }),
  }),
});

const IngestPayload = builder.objectRef<Payload>('IngestUsageEventsPayload').implement({
  description: 'What ingestUsageEvents stored, or the userErrors that refused the whole batch',
  fields: (t) => ({
    accepted: t.int({ nullable: true, description: 'Events of the batch, all accepted (a repeated event_id records nothing more); null when refused', resolve: (p) => (p.body as IngestBody | null)?.accepted ?? null }),
    eventIds: t.stringList({ nullable: true, description: 'The id each event was stored under, in submission order', resolve: (p) => (p.body as IngestBody | null)?.event_ids ?? null }),
    warnings: t.field({ type: [WarningRef], description: 'Events that feed no active meter or a final period; empty when none', resolve: (p) => (p.body as IngestBody | null)?.warnings ?? [] }),
    userErrors: t.field({ type: [UserErrorRef], description: USER_ERRORS_DESCRIPTION, resolve: (p) => p.userErrors }),
  }),
});

builder.mutationField('ingestUsageEvents', (t) =>
  t.field({
    type: IngestPayload,
    description: 'Ingests up to 100 usage events, all or nothing; a repeated event_id records nothing',
    args: { events: t.arg({ type: [UsageEventInput], required: true, description: '1 to 100 events; one invalid event refuses them all' }) },
    resolve: (_root, args, ctx) => payloadOf(ctx, ingestEventsOp, { events: toApiInput(args.events) }),
  }),
);

const PreviewEventRef = builder.objectRef<PreviewBody['events'][number]>('UsageEventPreview').implement({
  description: 'What ingesting one event of the batch would do',
  fields: (t) => ({
    valid: t.exposeBoolean('valid', { description: 'The event would be accepted' }),
    eventId: t.string({ nullable: true, description: 'Its event_id (trimmed); null when invalid or without one (ingest generates one)', resolve: (e) => e.event_id }),
    customerId: t.string({ nullable: true, description: 'The customer it resolves to (cust_…); null when invalid', resolve: (e) => e.customer_id }),
    error: t.string({ nullable: true, description: 'Why the event is invalid, naming the field', resolve: (e) => (e.error ? `${e.error.param}: ${e.error.message}` : null) }),
    duplicate: t.boolean({ nullable: true, description: 'Would deduplicate against a stored event or an earlier one of the batch (advisory)', resolve: (e) => e.duplicate }),
    matchedMeters: t.stringList({ description: 'Ids of the active meters it would feed (mtr_…)', resolve: (e) => e.matched_meters }),
    warnings: t.field({ type: [WarningRef], description: 'Why it would count toward no open period of an active meter; empty when it would', resolve: (e) => e.warnings }),
  }),
});

builder.queryField('usageEventsPreview', (t) =>
  t.field({
    description: 'What ingestUsageEvents would do with a batch, per event: validity, deduplication, meters fed, warnings; stores nothing',
    type: builder.objectRef<PreviewBody>('UsageEventsPreview').implement({
      description: 'What ingesting the batch would do; nothing is stored',
      fields: (f) => ({
        valid: f.exposeBoolean('valid', { description: 'Every event is valid: ingesting the batch would be accepted' }),
        events: f.field({ type: [PreviewEventRef], description: 'One per event, in submission order', resolve: (p) => p.events }),
      }),
    }),
    args: { events: t.arg({ type: [UsageEventInput], required: true, description: 'The batch to check, 1 to 100 events' }) },
    resolve: async (_root, args, ctx) => (await execute(ctx.core, previewEventsOp, { events: toApiInput(args.events) })).body as PreviewBody,
  }),
);
