import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeCheckout } from './checkouts.serializer.js';
import { createCheckout, retrieveCheckout } from './checkouts.service.js';

export function checkoutRoutes(router: Router) {
  router.post('/checkouts', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeCheckout(await createCheckout(ctx, req.body), ctx.baseUrl, ctx.clock.now()));
  });
  router.get('/checkouts', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeCheckout(await retrieveCheckout(ctx, req.query), ctx.baseUrl, ctx.clock.now()));
  });
}
