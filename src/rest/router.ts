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
import { testClockRoutes } from '../modules/test-clock/test-clock.routes.js';
import { refundRoutes } from '../modules/refunds/refunds.routes.js';
import { creditRoutes } from '../modules/credits/credits.routes.js';
import { meterRoutes } from '../modules/meters/meters.routes.js';
import { usageEventRoutes } from '../modules/usage-events/usage-events.routes.js';
import { AppError } from '../lib/errors.js';
import { requireApiKey, type ListenerEnv } from './auth.js';

/** Every /v1 route, in the order they are matched; the isolation test walks this list. */
export const V1_ROUTES: ((router: Router) => void)[] = [
  productRoutes,
  discountRoutes,
  checkoutRoutes,
  portalRoutes,
  licenseRoutes,
  orderRoutes,
  subscriptionRoutes,
  transactionRoutes,
  webhookRoutes,
  customerRoutes,
  refundRoutes,
  testClockRoutes,
  creditRoutes,
  meterRoutes,
  usageEventRoutes,
];

/** /v1: every route authenticates with x-api-key; writes honour Idempotency-Key (in the core). */
export function v1Router(listener: ListenerEnv): Router {
  const router = Router();
  router.use(requireApiKey(listener));
  for (const routes of V1_ROUTES) routes(router);
  router.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
