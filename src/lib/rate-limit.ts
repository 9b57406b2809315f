import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import { AppError } from './errors.js';

/** What one caller may spend, per window. */
export interface RateLimitConfig {
  /** RATE_LIMIT=off: no limits at all (benchmarks, a private network behind another limiter). */
  enabled: boolean;
  /** Requests per API key per second on /v1. */
  apiPerSecond: number;
  /** GraphQL query cost per API key per minute (a query's cost, not the number of requests). */
  graphqlCostPerMinute: number;
  /** Payment submits of the hosted checkout per client IP per ten minutes (card testing). */
  checkoutSubmitsPerIp: number;
  /** REDIS_URL: counters shared by every process of the service; in memory without it. */
  redisUrl: string | undefined;
}

/** Where a caller stands after a request: the `RateLimit-*` headers say it. */
export interface Quota {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export class RateLimitError extends AppError {
  constructor(
    message: string,
    readonly quota: Quota,
  ) {
    super('rate_limited', message);
  }
}

/** `RateLimit-*` (IETF draft) on every limited answer; `Retry-After` too when refused; none where nothing is limited. */
export function quotaHeaders(quota: Quota | null, refused = false): Record<string, string> {
  if (!quota) return {};
  return {
    'RateLimit-Limit': String(quota.limit),
    'RateLimit-Remaining': String(quota.remaining),
    'RateLimit-Reset': String(quota.resetSeconds),
    ...(refused ? { 'Retry-After': String(quota.resetSeconds) } : {}),
  };
}

export interface Limiter {
  /** Spends `points` of `key`'s window; throws RateLimitError when they are not there. Null: no limit applies. */
  take(key: string, points?: number): Promise<Quota | null>;
}

export interface RateLimits {
  api: Limiter;
  graphql: Limiter;
  checkoutSubmit: Limiter;
  close(): Promise<void>;
}

// RATE_LIMIT=off: no quota, so no `RateLimit-*` headers (a limit of 0 would tell clients to stop).
const unlimited: Limiter = { take: async () => null };

function limiter(make: (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract, name: string, points: number, duration: number, what: string): Limiter {
  const rl = make({ keyPrefix: `billing:rl:${name}`, points, duration });
  const quotaOf = (res: RateLimiterRes): Quota => ({
    limit: points,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  return {
    async take(key, cost = 1) {
      // A single request dearer than the whole window could never pass; it spends the window.
      const spend = Math.min(Math.max(1, Math.ceil(cost)), points);
      try {
        return quotaOf(await rl.consume(key, spend));
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        // A refused request spends nothing: what is left stays usable by cheaper requests.
        const after = await rl.reward(key, spend).catch(() => err);
        const quota = { ...quotaOf(after), remaining: Math.max(0, after.remainingPoints) };
        throw new RateLimitError(`Too many requests: ${what}. Retry after ${quota.resetSeconds} s.`, quota);
      }
    },
  };
}

/**
 * The service's limits. With Redis the counters are shared by all processes; if Redis cannot
 * be reached, each process falls back to its own in-memory counters rather than failing requests.
 */
export async function createRateLimits(config: RateLimitConfig, logger: Logger): Promise<RateLimits> {
  if (!config.enabled) return { api: unlimited, graphql: unlimited, checkoutSubmit: unlimited, close: async () => {} };
  let redis: Redis | undefined;
  if (config.redisUrl) {
    const client = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    let warned = false;
    client.on('error', (err: Error) => {
      if (!warned) logger.warn({ err: err.message }, 'rate limit store (Redis) unavailable; counting in memory until it answers');
      warned = true;
    });
    client.on('ready', () => (warned = false));
    // Requests before the connection is up would be counted per process; wait for it, briefly.
    await new Promise<void>((resolve) => {
      const done = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(done, 2_000);
      client.once('ready', done);
      client.once('error', done);
    });
    redis = client;
  }
  const make = (opts: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract =>
    redis ? new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) }) : new RateLimiterMemory(opts);
  return {
    api: limiter(make, 'api', config.apiPerSecond, 1, `at most ${config.apiPerSecond} requests per second per API key`),
    graphql: limiter(make, 'graphql', config.graphqlCostPerMinute, 60, `at most ${config.graphqlCostPerMinute} GraphQL cost points per minute per API key`),
    checkoutSubmit: limiter(make, 'checkout', config.checkoutSubmitsPerIp, 600, `at most ${config.checkoutSubmitsPerIp} payment attempts per 10 minutes from one address`),
    async close() {
      if (redis) await redis.quit().catch(() => redis?.disconnect());
    },
  };
}
