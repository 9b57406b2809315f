import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { getTransactionOp, searchTransactionsOp } from './transactions.operations.js';

export function transactionRoutes(router: Router) {
  route(router, 'get', '/transactions/search', searchTransactionsOp);
  route(router, 'get', '/transactions', getTransactionOp);
}
