import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { MetricsServer } from './server.js';

/**
 * The metrics listener of a process (src/server.ts, src/worker.ts) when METRICS_PORT is set;
 * undefined when it is not. prom-client is loaded only then: it costs a tenth of a second of
 * start-up. Start it before building the apps, which measure requests only when metrics are on.
 */
export async function startConfiguredMetrics(config: Pick<Config, 'metricsPort' | 'metricsHost'>, logger: Logger, db?: Database): Promise<MetricsServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const { startMetricsServer } = await import('./server.js');
  const metrics = await startMetricsServer({ host: config.metricsHost, port: config.metricsPort, logger, db });
  logger.info({ url: `${metrics.url}/metrics` }, `metrics listening: ${metrics.url}/metrics`);
  return metrics;
}
