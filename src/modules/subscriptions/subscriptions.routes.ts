import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { getSubscriptionOp, listCustomerSubscriptionsOp, searchSubscriptionsOp } from './subscriptions.operations.js';

export function subscriptionRoutes(router: Router) {
  route(router, 'get', '/subscriptions/search', searchSubscriptionsOp);
  route(router, 'get', '/subscriptions', getSubscriptionOp);
  route(router, 'get', '/customers/:id/subscriptions', listCustomerSubscriptionsOp, withParams('query'));
}
