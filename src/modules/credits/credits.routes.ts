import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import {
  accountBalanceOp,
  clearAutoRechargeOp,
  setAutoRechargeOp,
  closeAccountOp,
  createAccountOp,
  creditAccountOp,
  debitAccountOp,
  freezeAccountOp,
  getAccountOp,
  getTransactionOp,
  listAccountsOp,
  listByReferenceOp,
  listEntriesOp,
  postTransactionOp,
  reverseOnAccountOp,
  reverseTransactionOp,
  unfreezeAccountOp,
} from './credits.operations.js';

/** /v1/customer-credits; errors answer in the structured body the client reads (src/rest/error-handler.ts). */
export function creditRoutes(router: Router): void {
  const created = 201;
  const body = withParams('body');
  const query = withParams('query');
  route(router, 'post', '/customer-credits/accounts', createAccountOp, undefined, created);
  route(router, 'get', '/customer-credits/accounts', listAccountsOp);
  route(router, 'get', '/customer-credits/accounts/:id', getAccountOp, query);
  route(router, 'get', '/customer-credits/accounts/:id/balance', accountBalanceOp, query);
  route(router, 'get', '/customer-credits/accounts/:id/entries', listEntriesOp, query);
  route(router, 'post', '/customer-credits/accounts/:id/freeze', freezeAccountOp, body);
  route(router, 'post', '/customer-credits/accounts/:id/unfreeze', unfreezeAccountOp, body);
  route(router, 'post', '/customer-credits/accounts/:id/close', closeAccountOp, body);
  route(router, 'post', '/customer-credits/accounts/:id/credit', creditAccountOp, body, created);
  route(router, 'post', '/customer-credits/accounts/:id/debit', debitAccountOp, body, created);
  route(router, 'post', '/customer-credits/accounts/:id/reverse', reverseOnAccountOp, body, created);
  route(router, 'post', '/customer-credits/accounts/:id/auto-recharge', setAutoRechargeOp, body);
  route(router, 'delete', '/customer-credits/accounts/:id/auto-recharge', clearAutoRechargeOp, body);
  route(router, 'post', '/customer-credits/transactions', postTransactionOp, undefined, created);
  route(router, 'get', '/customer-credits/transactions', listByReferenceOp);
  route(router, 'get', '/customer-credits/transactions/:id', getTransactionOp, query);
  route(router, 'post', '/customer-credits/transactions/:id/reverse', reverseTransactionOp, body, created);
}
