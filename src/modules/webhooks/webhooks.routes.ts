import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import {
  acknowledgeEventOp,
  createWebhookOp,
  deleteWebhookOp,
  getWebhookOp,
  getWebhookSecretOp,
  listDeliveriesOp,
  listPendingEventsOp,
  listWebhooksOp,
  resendEventOp,
  rotateWebhookSecretOp,
  updateWebhookOp,
} from './webhooks.operations.js';

/** Path parameters are applied last, so a body cannot redirect a call to another endpoint or event. */
export function webhookRoutes(router: Router) {
  route(router, 'post', '/webhooks', createWebhookOp);
  route(router, 'get', '/webhooks', listWebhooksOp);
  route(router, 'get', '/webhooks/:id/events/pending', listPendingEventsOp, withParams('query'));
  route(router, 'post', '/webhooks/:id/events/:event_id/ack', acknowledgeEventOp, withParams('body'));
  route(router, 'post', '/webhooks/:id/events/:event_id/resend', resendEventOp, withParams('query'));
  route(router, 'get', '/webhooks/:id/secret', getWebhookSecretOp, withParams('query'));
  route(router, 'post', '/webhooks/:id/secret/rotate', rotateWebhookSecretOp, withParams('query'));
  route(router, 'get', '/webhooks/:id/deliveries', listDeliveriesOp, withParams('query'));
  route(router, 'get', '/webhooks/:id', getWebhookOp, withParams('query'));
  route(router, 'patch', '/webhooks/:id', updateWebhookOp, withParams('body'));
  route(router, 'delete', '/webhooks/:id', deleteWebhookOp, withParams('query'));
}
