/**
 * What the request paths and the job runner report to the metrics, without loading prom-client:
 * the registry (./registry.ts, prom-client) is loaded, and a sink installed here, only when a
 * process starts its metrics listener (METRICS_PORT). With no sink, nothing is measured: the
 * apps built meanwhile install no timing middleware and no GraphQL plugin.
 */

/** What became of one webhook delivery attempt: delivered, failed with a retry scheduled, failed for good. */
export type WebhookOutcome = 'succeeded' | 'retry_scheduled' | 'gave_up';

export interface MetricsSink {
  /** A response finished: `route` is the route template (`/v1/products/:id`), never the URL. */
  httpRequest(listener: string, method: string, route: string, status: number, seconds: number): void;
  /** A GraphQL operation executed, with its cost as measured before it ran (src/graphql/limits.ts). */
  graphqlOperation(name: string | undefined, type: string, seconds: number, cost: number | undefined): void;
  /** Webhook delivery attempts whose outcomes the worker recorded. */
  webhookDeliveries(outcome: WebhookOutcome, count: number): void;
}

let current: MetricsSink | undefined;

/** The sink when metrics are on in this process, else undefined. */
export const metricsSink = (): MetricsSink | undefined => current;

export function setMetricsSink(sink: MetricsSink | undefined): void {
  current = sink;
}
