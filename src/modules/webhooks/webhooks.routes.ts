import type { Response, Router } from 'express';
import { keepOutOfIdempotencyStore } from '../../rest/idempotency.js';
import { requestContext } from '../../rest/request-context.js';
import { serializeDelivery, serializeWebhook } from './webhooks.serializer.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  getWebhookSecret,
  listDeliveries,
  listWebhooks,
  resendEvent,
  rotateWebhookSecret,
  updateWebhook,
} from './webhooks.service.js';

/**
 * Answers that carry a signing secret must not be kept by caches or proxies, nor by the
 * idempotency store (a replay answers without the secret; GET …/secret shows it).
 */
const noStore = (res: Response) => keepOutOfIdempotencyStore(res, ['secret']).set('cache-control', 'no-store');

export function webhookRoutes(router: Router) {
  router.post('/webhooks', async (req, res) => {
    const { endpoint, secret } = await createWebhook(requestContext(res), req.body);
    noStore(res).json(serializeWebhook(endpoint, secret));
  });
  router.get('/webhooks', async (req, res) => {
    const page = await listWebhooks(requestContext(res), req.query);
    res.json({ ...page, items: page.items.map((w) => serializeWebhook(w)) });
  });
  router.get('/webhooks/:id', async (req, res) => {
    res.json(serializeWebhook(await getWebhook(requestContext(res), req.params.id)));
  });
  router.patch('/webhooks/:id', async (req, res) => {
    res.json(serializeWebhook(await updateWebhook(requestContext(res), req.params.id, req.body)));
  });
  router.delete('/webhooks/:id', async (req, res) => {
    res.json(serializeWebhook(await deleteWebhook(requestContext(res), req.params.id)));
  });
  router.get('/webhooks/:id/secret', async (req, res) => {
    noStore(res).json({ secret: await getWebhookSecret(requestContext(res), req.params.id) });
  });
  router.post('/webhooks/:id/secret/rotate', async (req, res) => {
    const { secret } = await rotateWebhookSecret(requestContext(res), req.params.id);
    noStore(res).json({ secret });
  });
  router.get('/webhooks/:id/deliveries', async (req, res) => {
    const page = await listDeliveries(requestContext(res), req.params.id, req.query);
    res.json({ ...page, items: page.items.map(serializeDelivery) });
  });
  router.post('/webhooks/:id/events/:event_id/resend', async (req, res) => {
    const delivery = await resendEvent(requestContext(res), { id: req.params.id, event_id: req.params.event_id });
    res.json(serializeDelivery(delivery));
  });
}
