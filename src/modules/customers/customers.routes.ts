import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeCustomer } from './customers.serializer.js';
import { createCustomer, listCustomers, retrieveCustomer, updateCustomer } from './customers.service.js';

export function customerRoutes(router: Router) {
  router.post('/customers', async (req, res) => {
    res.json(serializeCustomer(await createCustomer(requestContext(res), req.body)));
  });
  router.get('/customers/list', async (req, res) => {
    const page = await listCustomers(requestContext(res), req.query);
    res.json({ ...page, items: page.items.map(serializeCustomer) });
  });
  router.get('/customers', async (req, res) => {
    res.json(serializeCustomer(await retrieveCustomer(requestContext(res), req.query)));
  });
  router.patch('/customers', async (req, res) => {
    res.json(serializeCustomer(await updateCustomer(requestContext(res), req.body)));
  });
}
