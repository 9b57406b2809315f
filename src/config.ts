import path from 'node:path';
import type { GraphQLLimits } from './graphql/limits.js';
import type { RateLimitConfig } from './lib/rate-limit.js';
import { parseKey } from './lib/secret-box.js';

/** Everything the service reads from its environment, in one place (see the README's table). */
export interface Config {
  host: string;
  port: number;
  testPort: number;
  /** Embedded PGlite data directory; used when databaseUrl is absent. */
  dataDir: string;
  /** PostgreSQL connection string; switches from the embedded database to a server. */
  databaseUrl: string | undefined;
  /**
   * Public base addresses used in links the service hands out (product_url, checkout_url).
   * Unset = the address each listener actually bound.
   */
  publicUrl: string | undefined;
  testPublicUrl: string | undefined;
  logLevel: string;
  /** Maximum JSON request body. */
  bodyLimit: string;
  /** Serve hot reads (products) from the in-process cache kept by the database's change feed. */
  readCache: boolean;
  /** WEBHOOK_SECRET_KEY: encrypts webhook signing secrets at rest; required for production endpoints. */
  webhookSecretKey: Buffer | undefined;
  /** WEBHOOK_ALLOW_PRIVATE_URLS=true: production endpoints may point at loopback/private addresses. */
  allowPrivateWebhookUrls: boolean;
  /** JOB_RUNNER=off: this server process runs no jobs (webhook deliveries, reconciliation); `npm run worker` does. */
  jobRunner: boolean;
  /** RATE_LIMIT, RATE_LIMIT_API_PER_SECOND, RATE_LIMIT_GRAPHQL_COST_PER_MINUTE, RATE_LIMIT_CHECKOUT_SUBMITS, REDIS_URL. */
  rateLimits: RateLimitConfig;
  /** GRAPHQL_MAX_COST, GRAPHQL_MAX_DEPTH, GRAPHQL_MAX_ALIASES, GRAPHQL_MAX_TOKENS. */
  graphqlLimits: GraphQLLimits;
  /** SHUTDOWN_TIMEOUT_MS: how long SIGTERM waits for in-flight requests and job rounds before it closes what is left. */
  shutdownTimeoutMs: number;
  /** DUNNING_RETRY_DAYS: days after a renewal's first failure at which it is tried again (then unpaid). */
  dunningRetryDays: number[];
  /** METRICS_PORT: the Prometheus listener (`GET /metrics`) of this process; unset = none. */
  metricsPort: number | undefined;
  /** METRICS_HOST: the address it binds (default HOST). */
  metricsHost: string;
}

function daysFrom(name: string, value: string | undefined, fallback: number[]): number[] {
  if (value === undefined || value.trim() === '') return fallback;
  const days = value.split(',').map((d) => Number(d.trim()));
  if (days.some((d) => !Number.isFinite(d) || d <= 0) || days.some((d, i) => i > 0 && d <= days[i - 1]!)) {
    throw new Error(`${name} must be increasing positive numbers of days separated by commas (e.g. 1,3,5,7), got "${value}"`);
  }
  return days;
}

function positiveIntFrom(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got "${value}"`);
  return n;
}

function intFrom(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = intFrom('PORT', env.PORT, 8080);
  const testPort = intFrom('TEST_PORT', env.TEST_PORT, 8081);
  return {
    host,
    port,
    testPort,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    publicUrl: env.PUBLIC_URL ? env.PUBLIC_URL.replace(/\/$/, '') : undefined,
    testPublicUrl: env.TEST_PUBLIC_URL ? env.TEST_PUBLIC_URL.replace(/\/$/, '') : undefined,
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimit: env.BODY_LIMIT || '256kb',
    readCache: env.READ_CACHE !== 'off',
    webhookSecretKey: env.WEBHOOK_SECRET_KEY ? parseKey('WEBHOOK_SECRET_KEY', env.WEBHOOK_SECRET_KEY) : undefined,
    allowPrivateWebhookUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
    jobRunner: env.JOB_RUNNER !== 'off',
    rateLimits: {
      enabled: env.RATE_LIMIT !== 'off',
      apiPerSecond: positiveIntFrom('RATE_LIMIT_API_PER_SECOND', env.RATE_LIMIT_API_PER_SECOND, 100),
      graphqlCostPerMinute: positiveIntFrom('RATE_LIMIT_GRAPHQL_COST_PER_MINUTE', env.RATE_LIMIT_GRAPHQL_COST_PER_MINUTE, 100_000),
      checkoutSubmitsPerIp: positiveIntFrom('RATE_LIMIT_CHECKOUT_SUBMITS', env.RATE_LIMIT_CHECKOUT_SUBMITS, 30),
      redisUrl: env.REDIS_URL || undefined,
    },
    shutdownTimeoutMs: positiveIntFrom('SHUTDOWN_TIMEOUT_MS', env.SHUTDOWN_TIMEOUT_MS, 10_000),
    dunningRetryDays: daysFrom('DUNNING_RETRY_DAYS', env.DUNNING_RETRY_DAYS, [1, 3, 5, 7]),
    metricsPort: env.METRICS_PORT ? intFrom('METRICS_PORT', env.METRICS_PORT, 0) : undefined,
    metricsHost: env.METRICS_HOST || host,
    graphqlLimits: {
      maxCost: positiveIntFrom('GRAPHQL_MAX_COST', env.GRAPHQL_MAX_COST, 5_000),
      maxDepth: positiveIntFrom('GRAPHQL_MAX_DEPTH', env.GRAPHQL_MAX_DEPTH, 10),
      maxAliases: positiveIntFrom('GRAPHQL_MAX_ALIASES', env.GRAPHQL_MAX_ALIASES, 30),
      maxTokens: positiveIntFrom('GRAPHQL_MAX_TOKENS', env.GRAPHQL_MAX_TOKENS, 2_000),
    },
  };
}
