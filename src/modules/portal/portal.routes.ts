import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { createPortalLink } from './portal.service.js';

export function portalRoutes(router: Router) {
  router.post('/customers/billing', async (req, res) => {
    res.json(await createPortalLink(requestContext(res), req.body));
  });
}
