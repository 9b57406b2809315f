import { loadConfig } from './config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);

try {
  const service = await startService({ config, logger });
  logger.info(
    { prod: service.prodUrl, test: service.testUrl, database: service.db.kind === 'embedded' ? config.dataDir : 'postgresql' },
    `billing service listening: production ${service.prodUrl}, test ${service.testUrl}`,
  );
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await service.close();
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
  process.exit(1);
}
