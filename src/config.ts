import path from 'node:path';
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
  };
}
