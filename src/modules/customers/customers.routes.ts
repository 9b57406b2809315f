import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { createCustomerOp, listCustomersOp, retrieveCustomerOp, updateCustomerOp } from './customers.operations.js';

export function customerRoutes(router: Router) {
  route(router, 'post', '/customers', createCustomerOp);
  route(router, 'get', '/customers/list', listCustomersOp);
  route(router, 'get', '/customers', retrieveCustomerOp);
  route(router, 'patch', '/customers', updateCustomerOp);
}
