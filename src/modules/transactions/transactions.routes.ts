import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeTransaction } from './transactions.serializer.js';
import { retrieveTransaction, searchTransactions } from './transactions.service.js';

export function transactionRoutes(router: Router) {
  router.get('/transactions/search', async (req, res) => {
    const page = await searchTransactions(requestContext(res), req.query);
    res.json({ ...page, items: page.items.map(serializeTransaction) });
  });
  router.get('/transactions', async (req, res) => {
    res.json(serializeTransaction(await retrieveTransaction(requestContext(res), req.query)));
  });
}
