import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { activateLicenseOp, deactivateLicenseOp, listCustomerLicensesOp, listLicenseInstancesOp, validateLicenseOp } from './licenses.operations.js';

export function licenseRoutes(router: Router) {
  route(router, 'post', '/licenses/activate', activateLicenseOp);
  route(router, 'post', '/licenses/validate', validateLicenseOp);
  route(router, 'post', '/licenses/deactivate', deactivateLicenseOp);
  route(router, 'get', '/licenses/:id/instances', listLicenseInstancesOp, withParams('query'));
  route(router, 'get', '/customers/:id/licenses', listCustomerLicensesOp, withParams('query'));
}
