import { defineOperation, renderAsIs } from '../../core/operation.js';
import { listOf } from '../../lib/pagination.js';
import { consumedUnitsSchema, createMeterSchema, listMetersSchema, meterIdSchema, previewMeterSchema, updateMeterSchema } from './meters.schemas.js';
import { consumedUnitsEntity, meterEntity, meterList, meterPreviewEntity, serializeConsumedUnits, serializeMeter } from './meters.serializer.js';
import { archiveMeter, consumedUnits, createMeter, findMeterOrThrow, listMeters, previewCandidate, previewExisting, unarchiveMeter, updateMeter } from './meters.service.js';

/** The meter operations of the official client (`meters*`); errors answer in its structured body. */
const meter = (_ctx: unknown, m: Parameters<typeof serializeMeter>[0]) => serializeMeter(m);

export const createMeterOp = defineOperation({ name: 'meters.create', summary: 'Create a meter', description: 'Answers 201. Defines how usage events are aggregated into billable units; a name already used in the store, archived meters included, is refused (409 `meter_name_taken`).', input: createMeterSchema, write: true, output: meterEntity, run: createMeter, render: meter });

export const getMeterOp = defineOperation({ name: 'meters.get', summary: 'Retrieve a meter', description: 'Archived meters are returned too.', input: meterIdSchema, write: false, output: meterEntity, run: (ctx, i) => findMeterOrThrow(ctx, i.id), render: meter });

export const listMetersOp = defineOperation({
  name: 'meters.list',
  summary: 'List meters',
  description: 'Newest first; archived meters only with `include_archived=true`. Paged by cursor: `limit` (at most 100), `starting_after` or `ending_before`.',
  input: listMetersSchema,
  write: false,
  output: meterList,
  run: listMeters,
  render: (_ctx, page) => listOf(page, serializeMeter),
  idOf: () => null,
});

export const updateMeterOp = defineOperation({ name: 'meters.update', summary: 'Update a meter', description: 'A rename must stay unique (409 `meter_name_taken`); the definition (filter, aggregation, `aggregation_property`) can change only while the meter has processed no usage and no product using it was bought (409 `meter_definition_locked`).', input: updateMeterSchema, write: true, output: meterEntity, run: updateMeter, render: meter });

export const archiveMeterOp = defineOperation({ name: 'meters.archive', summary: 'Archive a meter', description: 'The meter leaves the default listing and stops accruing usage, but is never deleted; archiving an archived meter answers it unchanged.', input: meterIdSchema, write: true, output: meterEntity, run: (ctx, i) => archiveMeter(ctx, i.id), render: meter });

export const unarchiveMeterOp = defineOperation({ name: 'meters.unarchive', summary: 'Unarchive a meter', description: 'The meter returns to the default listing and resumes accruing usage; unarchiving an active meter answers it unchanged.', input: meterIdSchema, write: true, output: meterEntity, run: (ctx, i) => unarchiveMeter(ctx, i.id), render: meter });

export const consumedUnitsOp = defineOperation({
  name: 'meters.consumed',
  summary: "Get a customer's consumed units",
  description: "Units consumed through the meter in the billing period, with the period's boundaries: the current period by default, or replayed from the raw events up to `at`.",
  input: consumedUnitsSchema,
  write: false,
  output: consumedUnitsEntity,
  run: consumedUnits,
  render: (_ctx, c) => serializeConsumedUnits(c),
  idOf: () => null,
});

export const previewMeterOp = defineOperation({
  name: 'meters.preview',
  summary: 'Preview an unsaved meter definition',
  description: 'Dry-runs a candidate definition against your usage over the last 7 whole UTC days; nothing is written. Invalid input answers 422.',
  input: previewMeterSchema,
  write: false,
  invalidInputCode: 'unprocessable_input',
  output: meterPreviewEntity,
  run: previewCandidate,
  render: renderAsIs,
  idOf: () => null,
});

export const previewExistingMeterOp = defineOperation({
  name: 'meters.preview_existing',
  summary: 'Preview an existing meter',
  description: 'Dry-runs the meter against your usage over the last 7 whole UTC days; nothing is written.',
  input: meterIdSchema,
  write: false,
  output: meterPreviewEntity,
  run: (ctx, i) => previewExisting(ctx, i.id),
  render: renderAsIs,
  idOf: () => null,
});
