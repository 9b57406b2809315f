import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeOrder } from './orders.serializer.js';
import { listCustomerOrders } from './orders.service.js';

export function orderRoutes(router: Router) {
  router.get('/customers/:id/orders', async (req, res) => {
    const page = await listCustomerOrders(requestContext(res), String(req.params.id), req.query);
    res.json({ ...page, items: page.items.map(serializeOrder) });
  });
}
