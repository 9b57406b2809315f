import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeSubscription } from './subscriptions.serializer.js';
import { listCustomerSubscriptions, retrieveSubscription, searchSubscriptions } from './subscriptions.service.js';

export function subscriptionRoutes(router: Router) {
  router.get('/subscriptions/search', async (req, res) => {
    const ctx = requestContext(res);
    const page = await searchSubscriptions(ctx, req.query);
    res.json({ ...page, items: page.items.map((s) => serializeSubscription(s, ctx.baseUrl)) });
  });
  router.get('/subscriptions', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeSubscription(await retrieveSubscription(ctx, req.query), ctx.baseUrl));
  });
  router.get('/customers/:id/subscriptions', async (req, res) => {
    const ctx = requestContext(res);
    const page = await listCustomerSubscriptions(ctx, String(req.params.id), req.query);
    res.json({ ...page, items: page.items.map((s) => serializeSubscription(s, ctx.baseUrl)) });
  });
}
