import { Router, type RequestHandler } from 'express';
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
import { splitRoutes } from '../modules/splits/splits.routes.js';
import { affiliateRoutes } from '../modules/affiliates/affiliates.routes.js';
import { statsRoutes } from '../modules/stats/stats.routes.js';
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
  splitRoutes,
  affiliateRoutes,
  statsRoutes,
];

/** The verbs routes register with (see `route` in operation-route.ts). */
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

/** `customers` of `/customers/cus_1/orders`. */
const resourceOf = (path: string) => {
  const end = path.indexOf('/', 1);
  return path.slice(1, end === -1 ? undefined : end);
};

/** A middleware that hands a request to the router of its resource; the routers, for tests that list the routes. */
export type ResourceDispatch = RequestHandler & { routers: Router[] };

/**
 * The routes grouped by resource (their first path segment, always literal): a request is
 * matched against its resource's few routes, not against every /v1 route in turn, which was
 * a tenth of the CPU of a cheap request. Registration order is kept within a resource.
 */
function byResource(register: readonly ((router: Router) => void)[]): ResourceDispatch {
  const groups = new Map<string, Router>();
  const groupOf = (path: string) => {
    const name = resourceOf(path);
    if (name.startsWith(':')) throw new Error(`a /v1 route must start with a literal segment: ${path}`);
    let group = groups.get(name);
    if (!group) groups.set(name, (group = Router()));
    return group;
  };
  const facade = Object.fromEntries(METHODS.map((m) => [m, (path: string, ...handlers: RequestHandler[]) => groupOf(path)[m](path, ...handlers)])) as unknown as Router;
  for (const routes of register) routes(facade);
  const dispatch: RequestHandler = (req, res, next) => {
    const group = groups.get(resourceOf(req.path));
    if (group) group(req, res, next);
    else next();
  };
  return Object.assign(dispatch, { routers: [...groups.values()] });
}

/** /v1: every route authenticates with x-api-key; writes honour Idempotency-Key (in the core). */
export function v1Router(listener: ListenerEnv): Router {
  const router = Router();
  router.use(requireApiKey(listener));
  router.use(byResource(V1_ROUTES));
  router.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
