import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { createPortalLinkOp } from './portal.operations.js';

export function portalRoutes(router: Router) {
  route(router, 'post', '/customers/billing', createPortalLinkOp);
}
