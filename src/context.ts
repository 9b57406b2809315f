import type { Mode } from './generated/prisma/enums.js';
import type { ServiceCaches } from './caches.js';
import type { Clock } from './lib/clock.js';
import type { DataScope, Tenant, TenantContext } from './db/tenant.js';

export type Source = 'rest' | 'graphql' | 'cli' | 'test' | 'worker' | 'page';

/**
 * What every core service receives instead of an HTTP request: who is calling (store and
 * environment), the data scope (database, and the transaction when inside one; see
 * src/db/tenant.ts), the clock and where the call came from. Built by the REST adapter, the
 * GraphQL context factory, the hosted pages, the job runner or a test.
 */
export interface RequestContext extends TenantContext {
  readonly clock: Clock;
  readonly traceId: string;
  readonly source: Source;
  /** The API key the caller authenticated with; absent for the CLI, hosted pages, jobs and direct calls. */
  readonly apiKeyId?: string;
  /** Public base URL of this environment's listener, for links handed out (product_url). */
  readonly baseUrl: string;
  /** Hot-read caches of a running service; absent (no caching) for the CLI and direct service calls. */
  readonly caches?: ServiceCaches;
  /** The caller's `Idempotency-Key`: a write that carries one answers retries with its first answer. */
  readonly idempotencyKey?: string;
  /** The service's own clock when `clock` is a store's test clock ahead of it. */
  readonly baseClock?: Clock;
  /** Runs a store environment's due work at once (test clock advances); absent where no runner is at hand. */
  readonly runDueWork?: RunDueWork;
}

export type RunDueWork = (only: Tenant) => Promise<Record<string, number>>;

/** What one environment of a running service shares between its requests. */
export interface ServiceEnv {
  readonly data: DataScope;
  readonly mode: Mode;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly caches?: ServiceCaches;
  readonly runDueWork?: RunDueWork;
}

/** A context acting for `storeId` in the environment `env` serves. */
export function contextFor(
  env: ServiceEnv,
  storeId: string,
  caller: { traceId: string; source: Source; apiKeyId?: string; idempotencyKey?: string },
): RequestContext {
  return { data: env.data, mode: env.mode, clock: env.clock, baseUrl: env.baseUrl, caches: env.caches, runDueWork: env.runDueWork, storeId, ...caller };
}
