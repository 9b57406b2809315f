import { contextFor, type RequestContext } from '../../src/context.js';
import type { Clock } from '../../src/lib/clock.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { createStore, type CreatedStore } from '../../src/modules/stores/stores.service.js';
import { startService, type RunningService } from '../../src/service.js';
import { loadConfig } from '../../src/config.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { responseCheck } from './openapi-check.js';

export interface TestService extends RunningService {
  db: TestDatabase;
  /** A new store with its two keys, created through the CLI's code path. */
  createStore(name?: string): Promise<CreatedStore>;
  /** The core context of a store in one environment, as the listener would build it for that store's key. */
  contextOf(store: { id: string }, mode?: 'test' | 'prod'): RequestContext;
}

/** The real service (both listeners, migrations, auth) on free ports over a fresh database. */
export async function startTestService(
  options: { clock?: Clock; env?: Record<string, string>; logger?: Logger; onStatement?: (sql: string) => void } = {},
): Promise<TestService> {
  const db = await openTestDatabase({ onStatement: options.onStatement });
  // Rate limits are off unless a test turns them on (test/rest/rate-limit.test.ts): tests of
  // concurrency send bursts from one key that the limits would refuse, as they should.
  const config = { ...loadConfig({ HOST: '127.0.0.1', PORT: '0', TEST_PORT: '0', RATE_LIMIT: 'off', ...options.env }), bodyLimit: '64kb' };
  const logger = options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const service = await startService({ config, logger, db, clock: options.clock });
  const check = responseCheck();
  check.watch(service.servers.prod);
  check.watch(service.servers.test);
  return {
    ...service,
    db,
    createStore: (name = 'Test store') => createStore(db.prisma, { name }),
    contextOf: (store, mode = 'test') => contextFor(service.envs[mode], store.id, { traceId: 'test', source: 'test' }),
    async close() {
      await service.close();
      await db.close();
      if (check.violations.length) {
        const shown = check.violations.slice(0, 20).join('\n  ');
        throw new Error(`${check.violations.length} /v1 answers did not match the OpenAPI document (src/rest/openapi.ts):\n  ${shown}`);
      }
    },
  };
}

/** fetch with the API key and JSON body handled. */
export function api(baseUrl: string, key: string | undefined) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(key ? { 'x-api-key': key } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}
