import { defineOperation, renderAsIs } from '../../core/operation.js';
import { listOf } from '../../lib/pagination.js';
import { batchSchema, listUsageEventsSchema } from './usage-events.schemas.js';
import { ingestReport, previewReport, serializeUsageEvent, usageEventList } from './usage-events.serializer.js';
import { ingest, listUsageEvents, previewIngest } from './usage-events.service.js';

/**
 * The usage-event operations of the official client (`events*`). Invalid input answers 422,
 * as the client documents. Ingest is a write in `steps`: its one write is a single statement
 * (events and their projection), and a replayed batch records nothing by its event ids.
 */

export const ingestEventsOp = defineOperation({
  name: 'events.ingest',
  summary: 'Ingest usage events',
  description: 'Answers 202 with the `event_id` of each event accepted. The whole batch is refused (422) if any event is invalid; re-sending an `event_id` already accepted records nothing, so a retried batch is safe.',
  input: batchSchema,
  write: 'steps',
  invalidInputCode: 'unprocessable_input',
  output: ingestReport,
  run: ingest,
  render: renderAsIs,
  idOf: () => null,
});

export const previewEventsOp = defineOperation({
  name: 'events.preview',
  summary: 'Preview usage events',
  description: 'Dry-run of ingest: a per-event report of validity, the `event_id` it would get, deduplication and the meters that would consume it; nothing is stored. Invalid input answers 422.',
  input: batchSchema,
  write: false,
  invalidInputCode: 'unprocessable_input',
  output: previewReport,
  run: previewIngest,
  render: renderAsIs,
  idOf: () => null,
});

export const listEventsOp = defineOperation({
  name: 'events.list',
  summary: 'List usage events',
  description: 'Oldest first, raw; filter by meter, customer and `reference` (your `event_id`). Paged forward by `limit` (at most 100) and `starting_after`.',
  input: listUsageEventsSchema,
  write: false,
  output: usageEventList,
  run: listUsageEvents,
  render: (_ctx, page) => listOf(page, serializeUsageEvent),
  idOf: () => null,
});
