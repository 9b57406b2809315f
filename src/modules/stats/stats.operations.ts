import { defineOperation } from '../../core/operation.js';
import { statsSummarySchema } from './stats.schemas.js';
import { serializeStatsSummary, statsSummaryEntity } from './stats.serializer.js';
import { statsSummary } from './stats.service.js';

export const statsSummaryOp = defineOperation({
  name: 'stats.summary',
  summary: 'Get the store metrics summary',
  description: 'Counts, revenue and MRR in `currency`, in minor units; `startDate` and `endDate` (Unix milliseconds) limit the totals, and `interval` adds a `periods` series.',
  input: statsSummarySchema,
  write: false,
  output: statsSummaryEntity,
  run: statsSummary,
  render: (_ctx, s) => serializeStatsSummary(s),
  idOf: () => null,
});
