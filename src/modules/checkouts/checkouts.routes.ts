import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { createCheckoutOp, retrieveCheckoutOp } from './checkouts.operations.js';

export function checkoutRoutes(router: Router) {
  route(router, 'post', '/checkouts', createCheckoutOp);
  route(router, 'get', '/checkouts', retrieveCheckoutOp);
}
