import { defineOperation, renderAsIs } from '../../core/operation.js';
import { listOf } from '../../lib/pagination.js';
import { consumedUnitsSchema, createMeterSchema, listMetersSchema, meterIdSchema, previewMeterSchema, updateMeterSchema } from './meters.schemas.js';
import { consumedUnitsEntity, meterEntity, meterList, meterPreviewEntity, serializeConsumedUnits, serializeMeter } from './meters.serializer.js';
import { archiveMeter, consumedUnits, createMeter, findMeterOrThrow, listMeters, previewCandidate, previewExisting, unarchiveMeter, updateMeter } from './meters.service.js';

/** The meter operations of the official client (`meters*`); errors answer in its structured body. */
const meter = (_ctx: unknown, m: Parameters<typeof serializeMeter>[0]) => serializeMeter(m);

export const createMeterOp = defineOperation({ name: 'meters.create', input: createMeterSchema, write: true, output: meterEntity, run: createMeter, render: meter });

export const getMeterOp = defineOperation({ name: 'meters.get', input: meterIdSchema, write: false, output: meterEntity, run: (ctx, i) => findMeterOrThrow(ctx, i.id), render: meter });

export const listMetersOp = defineOperation({
  name: 'meters.list',
  input: listMetersSchema,
  write: false,
  output: meterList,
  run: listMeters,
  render: (_ctx, page) => listOf(page, serializeMeter),
  idOf: () => null,
});

export const updateMeterOp = defineOperation({ name: 'meters.update', input: updateMeterSchema, write: true, output: meterEntity, run: updateMeter, render: meter });

export const archiveMeterOp = defineOperation({ name: 'meters.archive', input: meterIdSchema, write: true, output: meterEntity, run: (ctx, i) => archiveMeter(ctx, i.id), render: meter });

export const unarchiveMeterOp = defineOperation({ name: 'meters.unarchive', input: meterIdSchema, write: true, output: meterEntity, run: (ctx, i) => unarchiveMeter(ctx, i.id), render: meter });

export const consumedUnitsOp = defineOperation({
  name: 'meters.consumed',
  input: consumedUnitsSchema,
  write: false,
  output: consumedUnitsEntity,
  run: consumedUnits,
  render: (_ctx, c) => serializeConsumedUnits(c),
  idOf: () => null,
});

export const previewMeterOp = defineOperation({
  name: 'meters.preview',
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
  input: meterIdSchema,
  write: false,
  output: meterPreviewEntity,
  run: (ctx, i) => previewExisting(ctx, i.id),
  render: renderAsIs,
  idOf: () => null,
});
