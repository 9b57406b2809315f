import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { createRefundOp } from './refunds.operations.js';

export function refundRoutes(router: Router): void {
  route(router, 'post', '/refunds', createRefundOp);
}
