import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { listCustomerOrdersOp } from './orders.operations.js';

export function orderRoutes(router: Router) {
  route(router, 'get', '/customers/:id/orders', listCustomerOrdersOp, withParams('query'));
}
