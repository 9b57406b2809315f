import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database, PoolStats } from '../db/database.js';
import { oldestDueLagSeconds, webhookQueueDepth } from '../db/system.js';
import { dataScope } from '../db/tenant.js';
import type { Logger } from '../logger.js';
import { setMetricsSink, type MetricsSink } from './sink.js';

/**
 * The service's Prometheus metrics, on a registry of its own (not prom-client's global one).
 * Loaded only by a process that serves them (METRICS_PORT): see ./sink.ts.
 */
export const registry = new Registry();

/** Requests take about a millisecond: the default buckets (from 5 ms) would put them all in the first. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by listener (test or prod), method, route template and status',
  labelNames: ['listener', 'method', 'route', 'status'] as const,
  buckets: SECONDS,
  registers: [registry],
});

const graphqlDuration = new Histogram({
  name: 'graphql_operation_duration_seconds',
  help: 'Time from parsing a GraphQL operation to the end of its execution (authentication included), by operation name and type',
  labelNames: ['operation_name', 'operation_type'] as const,
  buckets: SECONDS,
  registers: [registry],
});

const graphqlCost = new Histogram({
  name: 'graphql_operation_cost',
  help: 'Cost of the GraphQL operations that ran (the cost GRAPHQL_MAX_COST and the GraphQL rate limit count), by operation name and type',
  labelNames: ['operation_name', 'operation_type'] as const,
  buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000],
  registers: [registry],
});

const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts recorded by this process, by outcome: succeeded, retry_scheduled (failed, tried again later), gave_up (failed, retries exhausted)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
// Every outcome is present from the start, so a rate over it is defined before the first failure.
for (const outcome of ['succeeded', 'retry_scheduled', 'gave_up']) webhookDeliveries.inc({ outcome }, 0);

/**
 * Operation names come from the client: the first ones seen are kept as labels, later new ones
 * count as `other`, so a client cannot grow the series without bound.
 */
const MAX_OPERATION_NAMES = 200;
const operationNames = new Set<string>();
function operationLabel(name: string | undefined): string {
  if (!name) return 'anonymous';
  if (operationNames.has(name)) return name;
  if (operationNames.size >= MAX_OPERATION_NAMES || name.length > 100) return 'other';
  operationNames.add(name);
  return name;
}

const sink: MetricsSink = {
  httpRequest(listener, method, route, status, seconds) {
    httpDuration.observe({ listener, method, route, status }, seconds);
  },
  graphqlOperation(name, type, seconds, cost) {
    const labels = { operation_name: operationLabel(name), operation_type: type };
    graphqlDuration.observe(labels, seconds);
    if (cost !== undefined) graphqlCost.observe(labels, cost);
  },
  webhookDeliveries(outcome, count) {
    webhookDeliveries.inc({ outcome }, count);
  },
};

let processMetrics = false;

/** Turns measuring on in this process: the request paths report to the registry from now on, and process metrics are collected. */
export function enableMetrics(): void {
  if (!processMetrics) {
    // Process CPU, memory, heap, event loop lag, handles, GC, open file descriptors: `process_*` and `nodejs_*`.
    collectDefaultMetrics({ register: registry });
    processMetrics = true;
  }
  setMetricsSink(sink);
}

/** Turns measuring off again (a closed listener; tests restore the process as they found it). Apps built meanwhile keep measuring into the registry. */
export function disableMetrics(): void {
  setMetricsSink(undefined);
}

/** Names of the gauges read from the database at each scrape (see `observeDatabase`). */
const DATABASE_GAUGES = ['webhook_queue_depth', 'billing_worker_lag_seconds', 'db_pool_clients', 'db_pool_idle_clients', 'db_pool_waiting_clients', 'db_pool_max_clients'];

/**
 * Gauges read from `db` when scraped: the webhook queue and the job runner's lag (one statement
 * each, database-wide, so every process of the service reports the same values) and, on
 * PostgreSQL, this process's connection pool. The embedded database has one in-process
 * connection and no pool: the pool gauges are left out there. A statement that fails reports
 * NaN (and a warning) rather than failing the whole scrape. Returns a function that removes them.
 */
export function observeDatabase(db: Database, logger: Logger): () => void {
  for (const name of DATABASE_GAUGES) registry.removeSingleMetric(name);
  const scope = dataScope(db.prisma);
  const fromDatabase = (name: string, help: string, read: () => Promise<number>) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        try {
          this.set(await read());
        } catch (err) {
          logger.warn({ err, metric: name }, 'a metric could not be read from the database');
          this.set(Number.NaN);
        }
      },
    });
  fromDatabase('webhook_queue_depth', 'Webhook deliveries due now and not yet sent, across stores (to enabled HTTP endpoints; retries count once their time comes)', () =>
    webhookQueueDepth(scope, new Date()),
  );
  fromDatabase('billing_worker_lag_seconds', 'How long the oldest due item of the job runner (a Job: renewal, reconciliation, refund, dispute, auto-recharge; or a webhook delivery) has waited; 0 when nothing is due', () =>
    oldestDueLagSeconds(scope, new Date()),
  );
  const pool = db.poolStats?.bind(db);
  if (pool) {
    const poolGauge = (name: string, help: string, read: (s: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(pool()));
        },
      });
    poolGauge('db_pool_clients', "Connections open in this process's PostgreSQL pool, busy or idle", (s) => s.total);
    poolGauge('db_pool_idle_clients', "Idle connections in this process's PostgreSQL pool", (s) => s.idle);
    poolGauge('db_pool_waiting_clients', "Queries of this process waiting for a connection of its PostgreSQL pool", (s) => s.waiting);
    poolGauge('db_pool_max_clients', "Size of this process's PostgreSQL pool", (s) => s.max);
  }
  return () => {
    for (const name of DATABASE_GAUGES) registry.removeSingleMetric(name);
  };
}
