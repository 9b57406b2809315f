import { randomUUID } from 'node:crypto';
import express, { type Express } from 'express';
import type { Config } from './config.js';
import type { ServiceEnv } from './context.js';
import { systemDb } from './db/system.js';
import { graphqlHandler } from './graphql/yoga.js';
import { AppError } from './lib/errors.js';
import type { RateLimits } from './lib/rate-limit.js';
import type { Logger } from './logger.js';
import type { Readiness } from './readiness.js';
import { metricsSink, type MetricsSink } from './metrics/sink.js';
import type { ApiKeyAuthenticator } from './modules/stores/api-keys.js';
import type { ListenerEnv } from './rest/auth.js';
import { errorHandler } from './rest/error-handler.js';
import { v1Router } from './rest/router.js';
import { apiReference } from './rest/api-reference.js';
import { checkoutPages } from './pages/checkout-page.js';
import { splitInvitationPages } from './pages/split-invitation-page.js';
import { affiliatePages } from './pages/affiliate-pages.js';
import { portalPages } from './pages/portal-page.js';

export interface AppOptions {
  env: ServiceEnv;
  config: Pick<Config, 'bodyLimit' | 'graphqlLimits'>;
  logger: Logger;
  authenticator: ApiKeyAuthenticator;
  limits: RateLimits;
  /** What `/readyz` reports (the running service's checks). */
  readiness?: () => Promise<Readiness>;
}

/** Query parameters whose value is a credential (a portal link's signature, a token). */
const CREDENTIAL_PARAM = /sig|token|secret|key|password|session|code/i;

/**
 * The URL as the access log shows it. A page's query string can be a bearer credential (the
 * portal link's signature is good for an hour), so pages are logged by path alone; /v1 keeps
 * its query (filters, ids) with any credential-like parameter's value replaced.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const path = url.slice(0, q);
  if (!path.startsWith('/v1/')) return `${path}?[redacted]`;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const name of new Set(params.keys())) if (CREDENTIAL_PARAM.test(name)) params.set(name, '[redacted]');
  return `${path}?${params.toString()}`;
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
        log.info({ trace_id: traceId, method: req.method, url: loggableUrl(req.originalUrl), status: res.statusCode, ms: Math.round(performance.now() - start) }, 'request');
      });
    }
    next();
  };
}

/** The route template a request matched, for metrics: never the URL, whose ids would make a series each. */
function routeTemplate(req: express.Request, res: express.Response): string {
  const remembered = res.locals.route as string | undefined;
  if (remembered !== undefined) return remembered;
  if (req.route) return req.baseUrl + String(req.route.path);
  const url = req.originalUrl;
  if (url.startsWith('/graphql') && (url.length === 8 || url[8] === '?' || url[8] === '/')) return '/graphql';
  return 'unmatched';
}

/**
 * `http_request_duration_seconds`: each response's time, observed when it finishes. Installed
 * only when metrics are on (METRICS_PORT); then one listener and one observation a request.
 */
function requestMetrics(sink: MetricsSink, listener: string): express.RequestHandler {
  return (req, res, next) => {
    const start = performance.now();
    res.once('finish', () => sink.httpRequest(listener, req.method, routeTemplate(req, res), res.statusCode, (performance.now() - start) / 1000));
    next();
  };
}

/**
 * An error leaving /v1 reaches the error handler after the routers put back `req.baseUrl`;
 * the matched route's template is kept here, where the mount path is still set.
 */
const rememberRoute: express.ErrorRequestHandler = (err, req, res, next) => {
  if (req.route) res.locals.route = req.baseUrl + String(req.route.path);
  next(err);
};

/**
 * /graphql reads its body under the same limit as /v1 (yoga alone would take 25 MB) and with
 * the same handling of compressed bodies; yoga then gets the bytes, already inflated.
 */
function graphqlBody(limit: string): express.RequestHandler[] {
  return [
    express.raw({ type: () => true, limit }),
    (req, _res, next) => {
      delete req.headers['content-encoding'];
      next();
    },
  ];
}

/** One listener's application: the listener decides the environment (test or prod). */
export function buildApp(options: AppOptions): Express {
  const { env, config, logger, authenticator, limits } = options;
  const listener: ListenerEnv = { env, authenticator, limits };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  // First: its clock starts before the trace id and stops before the access log is written.
  const metrics = metricsSink();
  if (metrics) app.use(requestMetrics(metrics, env.mode));
  app.use(traceAndLog(logger.child({ listener: env.mode })));

  app.get('/healthz', async (_req, res) => {
    await systemDb(env.data).$queryRaw`SELECT 1`;
    res.json({ status: 'ok', mode: env.mode });
  });
  // Ready to be sent traffic: 503 while a check fails or the process drains for shutdown.
  app.get('/readyz', async (_req, res) => {
    const report = options.readiness ? await options.readiness() : undefined;
    if (!report) return void res.status(503).json({ ready: false });
    res.status(report.ready ? 200 : 503).json(report);
  });

  const yoga = graphqlHandler(listener, logger, config.graphqlLimits);
  app.use(yoga.graphqlEndpoint, graphqlBody(config.bodyLimit), (req: express.Request, res: express.Response) => yoga(req, res));

  app.use(apiReference({ page: env.mode === 'test' }));
  app.use('/v1', express.json({ limit: config.bodyLimit }), v1Router(listener), ...(metrics ? [rememberRoute] : []));
  app.use(checkoutPages(env, { bodyLimit: config.bodyLimit, submits: limits.checkoutSubmit }));
  app.use(portalPages(env, { bodyLimit: config.bodyLimit }));
  app.use(splitInvitationPages(env, authenticator, { bodyLimit: config.bodyLimit }));
  app.use(affiliatePages(env, { bodyLimit: config.bodyLimit }));

  app.use((req) => {
    throw new AppError('not_found', `No route ${req.method} ${req.path}`);
  });
  app.use(errorHandler(logger, config.bodyLimit));
  return app;
}
