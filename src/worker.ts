/**
 * `npm run worker`: webhook delivery as its own process, for running delivery apart from
 * (or in addition to) the servers — start the servers with WEBHOOK_WORKER=off to leave it
 * all here. Same configuration as the server (DATABASE_URL, WEBHOOK_SECRET_KEY, ...).
 * Several workers may run at once against one PostgreSQL database. With the embedded
 * database a worker cannot run beside the server: one process only may open the data
 * directory.
 */
import { loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { migrate } from './db/migrate.js';
import { systemClock } from './lib/clock.js';
import { createLogger } from './logger.js';
import { DeliveryWorker } from './modules/webhooks/delivery-worker.js';
import { configureWebhookSecretKey } from './modules/webhooks/endpoint-secrets.js';
import { databaseOptions } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
configureWebhookSecretKey(config.webhookSecretKey);

let db;
try {
  db = await openDatabase(databaseOptions(config));
} catch (err) {
  if (err instanceof DataDirInUseError) {
    console.error(
      `Cannot start the webhook worker: ${err.message}\n` +
        'With the embedded database the worker cannot run beside the server; the server delivers webhooks ' +
        'itself (unless WEBHOOK_WORKER=off). Run separate workers against PostgreSQL (DATABASE_URL).',
    );
  } else {
    logger.fatal({ err }, 'webhook worker failed to start');
  }
  process.exit(1);
}

try {
  const applied = await migrate(db);
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
} catch (err) {
  logger.fatal({ err }, 'webhook worker failed to start');
  await db.close();
  process.exit(1);
}

const worker = new DeliveryWorker({ db: db.prisma, clock: systemClock, logger, allowPrivateUrls: config.allowPrivateWebhookUrls });
worker.start();
logger.info({ database: db.kind === 'embedded' ? config.dataDir : 'postgresql' }, 'webhook worker running');

const stop = async (signal: string) => {
  logger.info({ signal }, 'webhook worker stopping');
  await worker.stop();
  await db.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
