import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { createSplitOp, deleteSplitOp, listIncomingAllocationsOp, listSplitsOp, retrieveSplitOp } from './splits.operations.js';

export function splitRoutes(router: Router) {
  route(router, 'post', '/splits', createSplitOp);
  route(router, 'get', '/splits', listSplitsOp);
  route(router, 'get', '/splits/allocations/incoming', listIncomingAllocationsOp);
  route(router, 'get', '/splits/:id', retrieveSplitOp, withParams('query'));
  route(router, 'delete', '/splits/:id', deleteSplitOp, withParams('query'));
}
