import { Router } from 'express';
import { licenseRoutes } from '../modules/licenses/licenses.routes.js';
import { customerRoutes } from '../modules/customers/customers.routes.js';
import { orderRoutes } from '../modules/orders/orders.routes.js';
import { subscriptionRoutes } from '../modules/subscriptions/subscriptions.routes.js';
import { transactionRoutes } from '../modules/transactions/transactions.routes.js';
import { productRoutes } from '../modules/products/products.routes.js';
import { discountRoutes } from '../modules/discounts/discounts.routes.js';
import { checkoutRoutes } from '../modules/checkouts/checkouts.routes.js';
import { portalRoutes } from '../modules/portal/portal.routes.js';
import { webhookRoutes } from '../modules/webhooks/webhooks.routes.js';
import { pendingEventRoutes } from '../modules/webhooks/pending-events.routes.js';
import { AppError } from '../lib/errors.js';
import { requireApiKey, type ListenerEnv } from './auth.js';
import { idempotentPost } from './idempotency.js';

/** /v1: every route authenticates with x-api-key; POSTs honour Idempotency-Key. */
export function v1Router(env: ListenerEnv): Router {
  const router = Router();
  router.use(requireApiKey(env));
  router.use(idempotentPost());
  productRoutes(router);
  discountRoutes(router);
  checkoutRoutes(router);
  portalRoutes(router);
  licenseRoutes(router);
  orderRoutes(router);
  subscriptionRoutes(router);
  transactionRoutes(router);
  pendingEventRoutes(router);
  webhookRoutes(router);
  customerRoutes(router);
  router.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
