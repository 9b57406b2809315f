import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { createDiscountOp, deleteDiscountOp, retrieveDiscountOp, searchDiscountsOp } from './discounts.operations.js';

export function discountRoutes(router: Router) {
  route(router, 'post', '/discounts', createDiscountOp);
  route(router, 'get', '/discounts/search', searchDiscountsOp);
  route(router, 'get', '/discounts', retrieveDiscountOp);
  route(router, 'delete', '/discounts/:id/delete', deleteDiscountOp, withParams('query'));
}
