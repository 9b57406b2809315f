import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { archiveMeterOp, consumedUnitsOp, createMeterOp, getMeterOp, listMetersOp, previewExistingMeterOp, previewMeterOp, unarchiveMeterOp, updateMeterOp } from './meters.operations.js';

/** /v1/meters; errors answer in the structured body the client reads (src/rest/error-handler.ts). */
export function meterRoutes(router: Router): void {
  const body = withParams('body');
  const query = withParams('query');
  route(router, 'post', '/meters/preview', previewMeterOp);
  route(router, 'post', '/meters', createMeterOp, undefined, 201);
  route(router, 'get', '/meters', listMetersOp);
  route(router, 'get', '/meters/:id', getMeterOp, query);
  route(router, 'patch', '/meters/:id', updateMeterOp, body);
  route(router, 'post', '/meters/:id/archive', archiveMeterOp, body);
  route(router, 'post', '/meters/:id/unarchive', unarchiveMeterOp, body);
  route(router, 'get', '/meters/:id/consumed', consumedUnitsOp, query);
  route(router, 'post', '/meters/:id/preview', previewExistingMeterOp, body);
}
