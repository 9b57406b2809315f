import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeDiscount } from './discounts.serializer.js';
import { createDiscount, deleteDiscount, retrieveDiscount, searchDiscounts } from './discounts.service.js';

export function discountRoutes(router: Router) {
  router.post('/discounts', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeDiscount(await createDiscount(ctx, req.body), ctx.clock.now()));
  });
  router.get('/discounts/search', async (req, res) => {
    const ctx = requestContext(res);
    const page = await searchDiscounts(ctx, req.query);
    const now = ctx.clock.now();
    res.json({ ...page, items: page.items.map((d) => serializeDiscount(d, now)) });
  });
  router.get('/discounts', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeDiscount(await retrieveDiscount(ctx, req.query), ctx.clock.now()));
  });
  router.delete('/discounts/:id/delete', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeDiscount(await deleteDiscount(ctx, { id: req.params.id }), ctx.clock.now()));
  });
}
