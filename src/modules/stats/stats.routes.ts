import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { statsSummaryOp } from './stats.operations.js';

export function statsRoutes(router: Router) {
  route(router, 'get', '/stats/summary', statsSummaryOp);
}
