import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { disableMetrics, enableMetrics, observeDatabase, registry } from './registry.js';

export interface MetricsServer {
  /** `http://host:port` of the listener. */
  url: string;
  server: Server;
  /** Stops listening, reading the database's gauges and measuring what is built from now on. */
  close(): Promise<void>;
}

/**
 * The Prometheus listener: `GET /metrics` answers the registry in the text exposition format,
 * anything else 404. No API key: bind it (METRICS_HOST) to an interface only the scraper
 * reaches. Turns measuring on for this process (`enableMetrics`); with `db`, the gauges read
 * from the database are served too (`observeDatabase`).
 */
export async function startMetricsServer(options: { host: string; port: number; logger: Logger; db?: Database }): Promise<MetricsServer> {
  const { logger } = options;
  const server = createServer((req, res) => {
    const path = req.url?.split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        logger.error({ err }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Collecting metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  enableMetrics();
  const stopObserving = options.db ? observeDatabase(options.db, logger) : () => {};
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  return {
    url,
    server,
    async close() {
      stopObserving();
      disableMetrics();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
