import { loadConfig } from './config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { databaseOptions, openDatabase, type Database } from './db/database.js';
import { createLogger } from './logger.js';
import { startConfiguredMetrics } from './metrics/start.js';
import type { MetricsServer } from './metrics/server.js';
import { announceFirstStart } from './admin/first-start.js';
import { openAdminChannel, type AdminChannel } from './admin/channel.js';
import { databaseStoreCommands } from './admin/store-commands.js';
import type { RunningService } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);

let db: Database | undefined;
let metrics: MetricsServer | undefined;
let service: RunningService | undefined;
let admin: AdminChannel | undefined;

// Installed before anything starts: a signal during start-up (an orchestrator giving up, a
// test stopping a server the moment it answers) still closes what is open and frees the data
// directory, instead of Node's default of dying on the spot.
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  // Draining starts now, in this tick (close() marks it before anything else): an answer
  // written after the line above already tells its client to close the connection.
  const closing = service?.close();
  await admin?.close();
  await closing;
  await metrics?.close();
  await db?.close();
  process.exit(0);
};
process.once('SIGINT', () => void stop('SIGINT'));
process.once('SIGTERM', () => void stop('SIGTERM'));

try {
  // The database opens while the application loads: a data directory in use is refused at
  // once, and a normal start waits for the slower of the two only.
  const [opened, { startService }] = await Promise.all([openDatabase(databaseOptions(config)), import('./service.js')]);
  db = opened;
  // METRICS_PORT: before the listeners' apps are built, which measure requests only when metrics are on.
  metrics = await startConfiguredMetrics(config, logger, db);
  service = await startService({ config, logger, db });
  const running = service;
  // Once the first requests can be answered (the GraphQL schema builds off the start-up path).
  setTimeout(() => running.warmUp(), 500).unref();
  logger.info(
    { prod: service.prodUrl, test: service.testUrl, database: db.kind === 'embedded' ? config.dataDir : 'postgresql' },
    `billing service listening: production ${service.prodUrl}, test ${service.testUrl}`,
  );
  const urls = { test: config.testPublicUrl ?? service.testUrl, prod: config.publicUrl ?? service.prodUrl };
  await announceFirstStart(db, urls, logger, (text) => process.stdout.write(text));
  // The embedded database is this process's: the CLI's store and key commands come through here.
  if (db.kind === 'embedded') {
    const commands = databaseStoreCommands(db);
    // A key revoked over the channel stops working in this server at once.
    const revokeKey: typeof commands.revokeKey = async (keyId) => {
      const revoked = await commands.revokeKey(keyId);
      running.forgetApiKey(keyId);
      return revoked;
    };
    admin = await openAdminChannel(config.dataDir, { ...commands, revokeKey }, logger).catch((err: unknown) => {
      // A data directory path too long for a Unix socket, say: the server runs, the CLI cannot reach it.
      logger.warn({ err }, 'no local administration channel: store commands need the server stopped');
      return undefined;
    });
  }
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
