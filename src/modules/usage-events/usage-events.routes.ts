import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { ingestEventsOp, listEventsOp, previewEventsOp } from './usage-events.operations.js';

/** /v1/events (usage events); errors answer in the structured body the client reads (src/rest/error-handler.ts). */
export function usageEventRoutes(router: Router): void {
  route(router, 'post', '/events/ingest', ingestEventsOp, undefined, 202);
  route(router, 'post', '/events/preview', previewEventsOp);
  route(router, 'get', '/events', listEventsOp);
}
