import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import {
  cancelSubscriptionOp,
  getSubscriptionOp,
  listCustomerSubscriptionsOp,
  pauseSubscriptionOp,
  resumeSubscriptionOp,
  searchSubscriptionsOp,
} from './subscriptions.operations.js';

export function subscriptionRoutes(router: Router) {
  route(router, 'get', '/subscriptions/search', searchSubscriptionsOp);
  route(router, 'get', '/subscriptions', getSubscriptionOp);
  route(router, 'get', '/customers/:id/subscriptions', listCustomerSubscriptionsOp, withParams('query'));
  route(router, 'post', '/subscriptions/:id/cancel', cancelSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/pause', pauseSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/resume', resumeSubscriptionOp, withParams('body'));
}
