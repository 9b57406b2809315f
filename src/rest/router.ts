import { Router } from 'express';
import { customerRoutes } from '../modules/customers/customers.routes.js';
import { productRoutes } from '../modules/products/products.routes.js';
import { AppError } from '../lib/errors.js';
import { requireApiKey, type ListenerEnv } from './auth.js';
import { idempotentPost } from './idempotency.js';

/** /v1: every route authenticates with x-api-key; POSTs honour Idempotency-Key. */
export function v1Router(env: ListenerEnv): Router {
  const router = Router();
  router.use(requireApiKey(env));
  router.use(idempotentPost());
  productRoutes(router);
  customerRoutes(router);
  router.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.baseUrl}${req.path}`);
  });
  return router;
}
