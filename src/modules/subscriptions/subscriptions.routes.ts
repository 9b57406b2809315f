import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import {
  cancelSubscriptionOp,
  getSubscriptionOp,
  listCustomerSubscriptionsOp,
  pauseSubscriptionOp,
  previewChangeOp,
  resumeSubscriptionOp,
  searchSubscriptionsOp,
  updateSubscriptionOp,
  upgradeSubscriptionOp,
} from './subscriptions.operations.js';

export function subscriptionRoutes(router: Router) {
  route(router, 'get', '/subscriptions/search', searchSubscriptionsOp);
  route(router, 'get', '/subscriptions', getSubscriptionOp);
  route(router, 'get', '/customers/:id/subscriptions', listCustomerSubscriptionsOp, withParams('query'));
  route(router, 'post', '/subscriptions/:id/cancel', cancelSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/pause', pauseSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/resume', resumeSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/upgrade/preview', previewChangeOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id/upgrade', upgradeSubscriptionOp, withParams('body'));
  route(router, 'post', '/subscriptions/:id', updateSubscriptionOp, withParams('body'));
}
