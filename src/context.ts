import type { PrismaClient } from './generated/prisma/client.js';
import type { Mode } from './generated/prisma/enums.js';
import type { ServiceCaches } from './caches.js';
import type { Clock } from './lib/clock.js';

/**
 * What every core service receives instead of an HTTP request: who is calling (store and
 * environment), the database, the clock and where the call came from. Built by the REST
 * adapter, the GraphQL context factory, the CLI or a test.
 */
export interface RequestContext {
  db: PrismaClient;
  storeId: string;
  mode: Mode;
  clock: Clock;
  traceId: string;
  source: 'rest' | 'graphql' | 'cli' | 'test' | 'worker' | 'page';
  /** The API key the caller authenticated with; absent for the CLI, hosted pages and direct calls. */
  apiKeyId?: string;
  /** Public base URL of this environment's listener, for links handed out (product_url). */
  baseUrl: string;
  /** Hot-read caches of a running service; absent (no caching) for the CLI and direct service calls. */
  caches?: ServiceCaches;
}

/** The tenant filter every read and write starts from: rows of this store and environment only. */
export function scope(ctx: Pick<RequestContext, 'storeId' | 'mode'>) {
  return { storeId: ctx.storeId, mode: ctx.mode };
}
