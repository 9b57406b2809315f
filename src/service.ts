import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.js';
import { startCaches, type ServiceCaches } from './caches.js';
import type { Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { systemClock, type Clock } from './lib/clock.js';
import type { Logger } from './logger.js';
import { ApiKeyAuthenticator } from './modules/stores/api-keys.js';
import { purgeExpiredIdempotencyRecords } from './rest/idempotency.js';
import { configureWebhookSecretKey } from './modules/webhooks/endpoint-secrets.js';
import { configureWebhookUrlPolicy } from './modules/webhooks/url-safety.js';
import { DeliveryWorker } from './modules/webhooks/delivery-worker.js';

const HOUR_MS = 60 * 60 * 1000;

export interface RunningService {
  db: Database;
  prodUrl: string;
  testUrl: string;
  close(): Promise<void>;
}

export function databaseOptions(config: Pick<Config, 'databaseUrl' | 'dataDir'>) {
  return config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir };
}

function listen(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('listening', () => resolve(server));
    server.once('error', reject);
    server.listen(port, host);
  });
}

function addressOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' || address === '::' ? 'localhost' : address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/**
 * Opens the database, applies pending migrations and serves the two listeners. The caller
 * may pass an already open database (tests) and a clock.
 */
export async function startService(options: { config: Config; logger: Logger; db?: Database; clock?: Clock }): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  configureWebhookSecretKey(config.webhookSecretKey);
  configureWebhookUrlPolicy({ allowPrivateUrls: config.allowPrivateWebhookUrls });
  const db = options.db ?? (await openDatabase(databaseOptions(config)));
  const servers: Server[] = [];
  let stopCaches = async () => {};
  try {
    const applied = await migrate(db);
    if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
    let caches: ServiceCaches | undefined;
    if (config.readCache) {
      const started = await startCaches(db);
      caches = started.caches;
      stopCaches = started.stop;
    }
    const shared = { db: db.prisma, clock, config, logger, authenticator: new ApiKeyAuthenticator(db.prisma), caches };
    // Bind first, so links can name the real port when the port was chosen by the system (0).
    servers.push(await listen(config.host, config.port));
    servers.push(await listen(config.host, config.testPort));
    const [prod, test] = servers as [Server, Server];
    prod.on('request', buildApp({ ...shared, mode: 'prod', baseUrl: config.publicUrl ?? addressOf(prod) }));
    test.on('request', buildApp({ ...shared, mode: 'test', baseUrl: config.testPublicUrl ?? addressOf(test) }));
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await stopCaches();
    if (!options.db) await db.close();
    throw err;
  }
  const purge = setInterval(() => {
    purgeExpiredIdempotencyRecords(db.prisma, clock.now()).catch((err: unknown) => logger.warn({ err }, 'idempotency purge failed'));
  }, HOUR_MS).unref();
  // In-process by default; WEBHOOK_WORKER=off leaves delivery to `npm run worker` processes.
  const worker = config.webhookWorker
    ? new DeliveryWorker({ db: db.prisma, clock, logger, allowPrivateUrls: config.allowPrivateWebhookUrls })
    : undefined;
  worker?.start();
  return {
    db,
    prodUrl: addressOf(servers[0]!),
    testUrl: addressOf(servers[1]!),
    async close() {
      clearInterval(purge);
      await worker?.stop();
      await Promise.all(
        servers.map((s) => new Promise<void>((resolve) => { s.close(() => resolve()); s.closeAllConnections(); })),
      );
      await stopCaches();
      if (!options.db) await db.close();
    },
  };
}
