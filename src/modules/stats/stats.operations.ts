import { defineOperation } from '../../core/operation.js';
import { statsSummarySchema } from './stats.schemas.js';
import { serializeStatsSummary, statsSummaryEntity } from './stats.serializer.js';
import { statsSummary } from './stats.service.js';

export const statsSummaryOp = defineOperation({
  name: 'stats.summary',
  input: statsSummarySchema,
  write: false,
  output: statsSummaryEntity,
  run: statsSummary,
  render: (_ctx, s) => serializeStatsSummary(s),
  idOf: () => null,
});
