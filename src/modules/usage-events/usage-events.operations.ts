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
  input: listUsageEventsSchema,
  write: false,
  output: usageEventList,
  run: listUsageEvents,
  render: (_ctx, page) => listOf(page, serializeUsageEvent),
  idOf: () => null,
});
