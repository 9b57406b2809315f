import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { createSplitSchema, listSplitsSchema, splitIdSchema } from './splits.schemas.js';
import { serializeAllocation, serializeSplit, splitAllocationEntity, splitEntity } from './splits.serializer.js';
import { pageOf } from '../../lib/response-schemas.js';
import { createSplit, deleteSplit, listIncomingAllocations, listSplits, retrieveSplit, type SplitWithRecipients } from './splits.service.js';

/** The split operations of the official client (`splits*`), for REST and GraphQL alike. */
const render = (_ctx: unknown, s: SplitWithRecipients) => serializeSplit(s);

// `steps`: the split is written in one transaction of its own; its invitation links are made after.
export const createSplitOp = defineOperation({ name: 'splits.create', summary: 'Create a revenue split', description: 'For the whole store (`type: store`) or one product (`type: product`), to up to 10 recipients whose shares sum to at most 100 percent; a split with an email invitee starts disabled until the first invitee accepts.', input: createSplitSchema, write: 'steps', output: splitEntity, run: createSplit, render });
export const retrieveSplitOp = defineOperation({ name: 'splits.retrieve', summary: 'Retrieve a split', description: 'With its recipients and their shares; invitees who have not accepted are shown with a masked email address.', input: splitIdSchema, write: false, output: splitEntity, run: retrieveSplit, render });
export const listSplitsOp = defineOperation({ name: 'splits.list', summary: 'List splits', description: 'The live splits of your store, newest first, with their recipients. Paged by `page_number` and `page_size` (at most 100).', input: listSplitsSchema, write: false, output: pageOf(splitEntity), run: listSplits, render: (_ctx, page) => mapPage(page, serializeSplit), idOf: () => null });
export const deleteSplitOp = defineOperation({ name: 'splits.delete', summary: 'Delete a split', description: 'The split stops applying to payments at once and is not found again.', input: splitIdSchema, write: true, output: splitEntity, run: deleteSplit, render });
/** Extension: what the caller's store receives from other stores' splits. */
export const listIncomingAllocationsOp = defineOperation({ name: 'splits.allocations.incoming', summary: 'List incoming split allocations', description: "What your store receives from other stores' splits, newest first. Paged by `page_number` and `page_size` (at most 100).", input: listSplitsSchema, write: false, output: pageOf(splitAllocationEntity), run: listIncomingAllocations, render: (_ctx, page) => mapPage(page, serializeAllocation), idOf: () => null });

