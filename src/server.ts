import { loadConfig } from './config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { databaseOptions, openDatabase, type Database } from './db/database.js';
import { createLogger } from './logger.js';
import { startConfiguredMetrics } from './metrics/start.js';
import type { MetricsServer } from './metrics/server.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);

let db: Database | undefined;
let metrics: MetricsServer | undefined;
try {
  // The database opens while the application loads: a data directory in use is refused at
  // once, and a normal start waits for the slower of the two only.
  const [opened, { startService }] = await Promise.all([openDatabase(databaseOptions(config)), import('./service.js')]);
  db = opened;
  // METRICS_PORT: before the listeners' apps are built, which measure requests only when metrics are on.
  metrics = await startConfiguredMetrics(config, logger, db);
  const service = await startService({ config, logger, db });
  // Once the first requests can be answered (the GraphQL schema builds off the start-up path).
  setTimeout(() => service.warmUp(), 500).unref();
  logger.info(
    { prod: service.prodUrl, test: service.testUrl, database: db.kind === 'embedded' ? config.dataDir : 'postgresql' },
    `billing service listening: production ${service.prodUrl}, test ${service.testUrl}`,
  );
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await service.close();
    await metrics?.close();
    await db?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
} catch (err) {
  if (err instanceof DataDirInUseError) {
    console.error(`Cannot start: ${err.message}`);
  } else {
    logger.fatal({ err }, 'failed to start');
  }
  await metrics?.close();
  await db?.close();
  process.exit(1);
}
