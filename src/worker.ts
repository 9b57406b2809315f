/**
 * `npm run worker`: the job runner (webhook deliveries, payment reconciliation) as its own
 * process, apart from (or in addition to) the servers — start the servers with JOB_RUNNER=off
 * to leave it all here. Same configuration as the server (DATABASE_URL, WEBHOOK_SECRET_KEY,
 * PUBLIC_URL, ...). Several workers may run at once against one PostgreSQL database. With the
 * embedded database a worker cannot run beside the server: one process only may open the
 * data directory.
 */
import { loadConfig } from './config.js';
import type { ServiceEnv } from './context.js';
import { databaseOptions, openDatabase } from './db/database.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { migrate } from './db/migrate.js';
import { dataScope } from './db/tenant.js';
import { createJobRunner } from './jobs/runner.js';
import { systemClock } from './lib/clock.js';
import { createLogger } from './logger.js';
import type { MetricsServer } from './metrics/server.js';
import { startConfiguredMetrics } from './metrics/start.js';
import { configureWebhookSecretKey } from './modules/webhooks/endpoint-secrets.js';
import { configureWebhookUrlPolicy } from './modules/webhooks/url-safety.js';
import { configureDunningSchedule } from './modules/subscriptions/renewals.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
configureWebhookSecretKey(config.webhookSecretKey);
configureWebhookUrlPolicy({ allowPrivateUrls: config.allowPrivateWebhookUrls });
configureDunningSchedule(config.dunningRetryDays);

let db;
try {
  db = await openDatabase(databaseOptions(config));
} catch (err) {
  if (err instanceof DataDirInUseError) {
    console.error(
      `Cannot start the worker: ${err.message}\n` +
        'With the embedded database the worker cannot run beside the server; the server runs the jobs ' +
        'itself (unless JOB_RUNNER=off). Run separate workers against PostgreSQL (DATABASE_URL).',
    );
  } else {
    logger.fatal({ err }, 'worker failed to start');
  }
  process.exit(1);
}

let metrics: MetricsServer | undefined;
try {
  const applied = await migrate(db);
  if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
  // METRICS_PORT: before the runner starts, so its first deliveries are counted.
  metrics = await startConfiguredMetrics(config, logger, db);
} catch (err) {
  logger.fatal({ err }, 'worker failed to start');
  await db.close();
  process.exit(1);
}

// Links in event payloads name the listeners' public addresses.
const data = dataScope(db.prisma);
const envs: Record<'test' | 'prod', ServiceEnv> = {
  prod: { data, mode: 'prod', clock: systemClock, baseUrl: config.publicUrl ?? `http://${config.host}:${config.port}` },
  test: { data, mode: 'test', clock: systemClock, baseUrl: config.testPublicUrl ?? `http://${config.host}:${config.testPort}` },
};
const jobs = createJobRunner({ db: db.prisma, clock: systemClock, logger, config, envFor: (mode) => envs[mode] });
jobs.start();
logger.info({ database: db.kind === 'embedded' ? config.dataDir : 'postgresql' }, 'job worker running');

const stop = async (signal: string) => {
  logger.info({ signal }, 'job worker stopping');
  // The round under way finishes (SHUTDOWN_TIMEOUT_MS at most); what it could not finish is handed back.
  await jobs.stop(config.shutdownTimeoutMs);
  await metrics?.close();
  await db.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));
