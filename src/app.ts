import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import type { Config } from './config.js';
import type { ServiceEnv } from './context.js';
import { systemDb } from './db/system.js';
import { graphqlHandler } from './graphql/yoga.js';
import { AppError } from './lib/errors.js';
import type { Logger } from './logger.js';
import type { ApiKeyAuthenticator } from './modules/stores/api-keys.js';
import type { ListenerEnv } from './rest/auth.js';
import { errorHandler } from './rest/error-handler.js';
import { v1Router } from './rest/router.js';
import { checkoutPages } from './pages/checkout-page.js';
import { portalPages } from './pages/portal-page.js';

export interface AppOptions {
  env: ServiceEnv;
  config: Pick<Config, 'bodyLimit'>;
  logger: Logger;
  authenticator: ApiKeyAuthenticator;
}

/**
 * Every response carries `x-trace-id`; every request is logged once, when it finishes,
 * with that id. Kept to a closure instead of pino-http: it runs on every request and the
 * per-request child logger showed up in the benchmark's profile.
 */
function traceAndLog(log: Logger): express.RequestHandler {
  return (req, res, next) => {
    const traceId = randomUUID();
    res.locals.traceId = traceId;
    res.setHeader('x-trace-id', traceId);
    if (log.isLevelEnabled('info')) {
      const start = performance.now();
      res.once('finish', () => {
        log.info({ trace_id: traceId, method: req.method, url: req.originalUrl, status: res.statusCode, ms: Math.round(performance.now() - start) }, 'request');
      });
    }
    next();
  };
}

/** One listener's application: the listener decides the environment (test or prod). */
export function buildApp(options: AppOptions): Express {
  const { env, config, logger, authenticator } = options;
  const listener: ListenerEnv = { env, authenticator };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use(traceAndLog(logger.child({ listener: env.mode })));

  app.get('/healthz', async (_req, res) => {
    await systemDb(env.data).$queryRaw`SELECT 1`;
    res.json({ status: 'ok', mode: env.mode });
  });

  const yoga = graphqlHandler(listener, logger);
  app.use(yoga.graphqlEndpoint, (req, res) => yoga(req, res));

  app.use('/v1', express.json({ limit: config.bodyLimit }), v1Router(listener));
  app.use(checkoutPages(env));
  app.use(portalPages(env));

  app.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.path}`);
  });
  app.use(errorHandler(logger, config.bodyLimit));
  return app;
}
