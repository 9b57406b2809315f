import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import {
  createAffiliateInviteOp,
  listAffiliateInvitesOp,
  listAffiliatesOp,
  listCommissionsOp,
  recordAffiliatePayoutOp,
  retrieveAffiliateOp,
  retrieveAffiliateProgramOp,
  updateAffiliateProgramOp,
} from './affiliates.operations.js';

export function affiliateRoutes(router: Router) {
  route(router, 'post', '/affiliates/invites', createAffiliateInviteOp);
  route(router, 'get', '/affiliates/invites', listAffiliateInvitesOp);
  route(router, 'get', '/affiliates/program', retrieveAffiliateProgramOp);
  route(router, 'post', '/affiliates/program', updateAffiliateProgramOp);
  route(router, 'get', '/affiliates', listAffiliatesOp);
  route(router, 'get', '/affiliates/:id', retrieveAffiliateOp, withParams('query'));
  route(router, 'get', '/affiliates/:id/commissions', listCommissionsOp, withParams('query'));
  route(router, 'post', '/affiliates/:id/payouts', recordAffiliatePayoutOp, withParams('body'));
}
