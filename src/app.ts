import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import { pinoHttp } from 'pino-http';
import type { Config } from './config.js';
import type { PrismaClient } from './generated/prisma/client.js';
import type { Mode } from './generated/prisma/enums.js';
import { graphqlHandler } from './graphql/yoga.js';
import type { Clock } from './lib/clock.js';
import { AppError } from './lib/errors.js';
import type { Logger } from './logger.js';
import type { ApiKeyAuthenticator } from './modules/stores/api-keys.js';
import type { ListenerEnv } from './rest/auth.js';
import { errorHandler } from './rest/error-handler.js';
import { v1Router } from './rest/router.js';

export interface AppOptions {
  mode: Mode;
  db: PrismaClient;
  clock: Clock;
  config: Pick<Config, 'bodyLimit'>;
  /** Public base URL of this listener, for links the service hands out. */
  baseUrl: string;
  logger: Logger;
  authenticator: ApiKeyAuthenticator;
}

/** One listener's application: the listener decides the environment (test or prod). */
export function buildApp(options: AppOptions): Express {
  const { mode, db, clock, config, logger, authenticator, baseUrl } = options;
  const env: ListenerEnv = { db, mode, clock, authenticator, baseUrl };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  app.use((req, res, next) => {
    const traceId = randomUUID();
    res.locals.traceId = traceId;
    res.setHeader('x-trace-id', traceId);
    next();
  });
  app.use(
    pinoHttp({
      logger: logger.child({ listener: mode }),
      genReqId: (_req, res) => (res as express.Response).locals.traceId,
      customAttributeKeys: { reqId: 'trace_id' },
      serializers: { req: (req) => ({ method: req.method, url: req.url }), res: (res) => ({ status: res.statusCode }) },
    }),
  );

  app.get('/healthz', async (_req, res) => {
    await db.$queryRaw`SELECT 1`;
    res.json({ status: 'ok', mode });
  });

  const yoga = graphqlHandler(env, logger);
  app.use(yoga.graphqlEndpoint, (req, res) => yoga(req, res));

  app.use('/v1', express.json({ limit: config.bodyLimit }), v1Router(env));

  app.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.path}`);
  });
  app.use(errorHandler(logger, config.bodyLimit));
  return app;
}
