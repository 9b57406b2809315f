import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { createSplitSchema, listSplitsSchema, splitIdSchema } from './splits.schemas.js';
import { serializeAllocation, serializeSplit, splitAllocationEntity, splitEntity } from './splits.serializer.js';
import { pageOf } from '../../lib/response-schemas.js';
import { createSplit, deleteSplit, listIncomingAllocations, listSplits, retrieveSplit, type SplitWithRecipients } from './splits.service.js';

/** The split operations of the official client (`splits*`), for REST and GraphQL alike. */
const render = (_ctx: unknown, s: SplitWithRecipients) => serializeSplit(s);

// `steps`: the split is written in one transaction of its own; its invitation links are made after.
export const createSplitOp = defineOperation({ name: 'splits.create', input: createSplitSchema, write: 'steps', output: splitEntity, run: createSplit, render });
export const retrieveSplitOp = defineOperation({ name: 'splits.retrieve', input: splitIdSchema, write: false, output: splitEntity, run: retrieveSplit, render });
export const listSplitsOp = defineOperation({ name: 'splits.list', input: listSplitsSchema, write: false, output: pageOf(splitEntity), run: listSplits, render: (_ctx, page) => mapPage(page, serializeSplit), idOf: () => null });
export const deleteSplitOp = defineOperation({ name: 'splits.delete', input: splitIdSchema, write: true, output: splitEntity, run: deleteSplit, render });
/** Extension: what the caller's store receives from other stores' splits. */
export const listIncomingAllocationsOp = defineOperation({ name: 'splits.allocations.incoming', input: listSplitsSchema, write: false, output: pageOf(splitAllocationEntity), run: listIncomingAllocations, render: (_ctx, page) => mapPage(page, serializeAllocation), idOf: () => null });

