import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { systemClock } from '../../src/lib/clock.js';
import { newId } from '../../src/lib/ids.js';
import { inTransaction } from '../../src/db/tenant.js';
import { createJobRunner } from '../../src/jobs/runner.js';
import type { JobRunner } from '../../src/jobs/job-runner.js';
import { createLogger } from '../../src/logger.js';
import { observeDatabase } from '../../src/metrics/registry.js';
import { startMetricsServer, type MetricsServer } from '../../src/metrics/server.js';
import { metricsSink } from '../../src/metrics/sink.js';
import { startConfiguredMetrics } from '../../src/metrics/start.js';
import { recordEvent } from '../../src/modules/events/events.service.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { closedPort, insertEndpoint, Receiver, waitUntil } from '../webhooks/delivery-support.js';
import { startServiceProcess, type ServiceProcess } from '../support/processes.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format, one sample a line (label values here hold no escaped quotes). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(url: string): Promise<{ samples: Sample[]; contentType: string | null; text: string }> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  return { samples: parse(text), contentType: res.headers.get('content-type'), text };
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

const one = (samples: Sample[], name: string, labels: Record<string, string> = {}) => {
  const found = find(samples, name, labels);
  expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
  return found[0]!.value;
};

const onPostgres = Boolean(process.env.DATABASE_URL);
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');

describe('Prometheus metrics of a service', () => {
  let metrics: MetricsServer;
  let service: TestService;
  let stopObserving: () => void;
  let runner: JobRunner;
  let receiver: Receiver;
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    // As the server process does: the listener first, so the apps built next measure requests.
    metrics = await startMetricsServer({ host: '127.0.0.1', port: 0, logger });
    // The job runner is ours (below), so the queue can be seen before it is worked off.
    service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    stopObserving = observeDatabase(service.db, logger);
    runner = createJobRunner({ db: service.db.prisma, clock: systemClock, logger, config: { allowPrivateWebhookUrls: false }, envFor: (mode) => service.envs[mode] });
    receiver = await Receiver.start();
    const store = await service.createStore('Metrics');
    key = store.test_api_key;
    storeId = store.id;
  });
  afterAll(async () => {
    stopObserving?.();
    await metrics?.close();
    await service?.close();
    await receiver?.close();
  });

  it('serves GET /metrics in the text format, 404 otherwise, with the process metrics', async () => {
    const { samples, contentType } = await scrape(metrics.url);
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(one(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(one(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(find(samples, 'nodejs_eventloop_lag_seconds').length).toBe(1);
    expect((await fetch(`${metrics.url}/`)).status).toBe(404);
    expect((await fetch(`${metrics.url}/metrics/x`)).status).toBe(404);
    expect((await fetch(`${metrics.url}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it('times /v1 requests by route template and status, never by URL', async () => {
    const rest = api(service.testUrl, key);
    const created = await rest('POST', '/v1/products', { name: 'Pro', price: 1900, currency: 'EUR', billing_type: 'onetime' });
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    expect((await rest('GET', `/v1/products/${id}`)).status).toBe(200);
    expect((await rest('GET', `/v1/products/${id}`)).status).toBe(200);
    // Refused inside the route: still the route's template.
    expect((await rest('GET', '/v1/products/prod_missing')).status).toBe(404);
    // No route: one fixed label.
    expect((await rest('GET', '/v1/nothing-here/1')).status).toBe(404);
    expect((await api(service.testUrl, undefined)('GET', '/healthz')).status).toBe(200);

    const { samples } = await scrape(metrics.url);
    const count = (labels: Record<string, string>) => one(samples, 'http_request_duration_seconds_count', { listener: 'test', ...labels });
    expect(count({ method: 'POST', route: '/v1/products', status: '200' })).toBe(1);
    expect(count({ method: 'GET', route: '/v1/products/:id', status: '200' })).toBe(2);
    expect(count({ method: 'GET', route: '/v1/products/:id', status: '404' })).toBe(1);
    expect(count({ method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(count({ method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    const sum = one(samples, 'http_request_duration_seconds_sum', { listener: 'test', method: 'GET', route: '/v1/products/:id', status: '200' });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(30);
    const buckets = find(samples, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/v1/products/:id', status: '200' });
    expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(2);
    // No series names a product, an unknown path or the production listener (nothing was asked of it).
    const routes = new Set(find(samples, 'http_request_duration_seconds_count').map((s) => s.labels.route));
    expect([...routes].filter((r) => r!.includes(id) || r!.includes('prod_missing') || r!.includes('nothing-here'))).toEqual([]);
    expect(find(samples, 'http_request_duration_seconds_count', { listener: 'prod' })).toEqual([]);
  });

  it('times GraphQL operations and observes their cost', async () => {
    const gql = (query: string) => api(service.testUrl, key)('POST', '/graphql', { query });
    const listed = await gql('query ProductPage { products(first: 5) { totalCount edges { node { id name } } } }');
    expect(listed.status).toBe(200);
    expect(listed.json.errors).toBeUndefined();
    expect((await gql('{ products(first: 2) { totalCount } }')).json.errors).toBeUndefined();

    const { samples } = await scrape(metrics.url);
    const named = { operation_name: 'ProductPage', operation_type: 'query' };
    expect(one(samples, 'graphql_operation_duration_seconds_count', named)).toBe(1);
    expect(one(samples, 'graphql_operation_duration_seconds_sum', named)).toBeGreaterThan(0);
    expect(one(samples, 'graphql_operation_cost_count', named)).toBe(1);
    // The connection: 1, plus 5 nodes of 1 each.
    expect(one(samples, 'graphql_operation_cost_sum', named)).toBe(6);
    expect(find(samples, 'graphql_operation_cost_bucket', { ...named, le: '5' })[0]?.value).toBe(0);
    expect(find(samples, 'graphql_operation_cost_bucket', { ...named, le: '10' })[0]?.value).toBe(1);
    expect(one(samples, 'graphql_operation_cost_count', { operation_name: 'anonymous', operation_type: 'query' })).toBe(1);
    expect(one(samples, 'http_request_duration_seconds_count', { listener: 'test', method: 'POST', route: '/graphql', status: '200' })).toBe(2);
  });

  it('reports the webhook queue, the runner lag and the delivery outcomes', async () => {
    const depth = async () => one((await scrape(metrics.url)).samples, 'webhook_queue_depth');
    const lag = async () => one((await scrape(metrics.url)).samples, 'billing_worker_lag_seconds');
    const outcome = async (o: string) => one((await scrape(metrics.url)).samples, 'webhook_deliveries_total', { outcome: o });
    expect(await depth()).toBe(0);
    expect(await lag()).toBe(0);
    const before = { succeeded: await outcome('succeeded'), retry: await outcome('retry_scheduled') };

    const good = await insertEndpoint(service.db.prisma, { storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    // A pull-mode endpoint's deliveries are not the runner's: never in the queue.
    await insertEndpoint(service.db.prisma, { storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'], deliveryMode: 'cli' });
    const ctx = service.contextOf({ id: storeId }, 'test');
    for (let i = 0; i < 3; i++) await inTransaction(ctx, (tx) => recordEvent(tx, 'checkout.completed', { id: newId('checkout'), object: 'checkout', mode: 'test' }));
    expect(await depth()).toBe(3);

    // The oldest due delivery has waited two minutes; a renewal job is due for five.
    const [oldest] = await service.db.prisma.webhookDelivery.findMany({ where: { endpointId: good.id }, orderBy: { id: 'asc' }, take: 1 });
    await service.db.prisma.webhookDelivery.update({ where: { id: oldest!.id }, data: { nextAttemptAt: new Date(Date.now() - 120_000) } });
    const waited = await lag();
    expect(waited).toBeGreaterThanOrEqual(120);
    expect(waited).toBeLessThan(180);
    const job = await service.db.prisma.job.create({
      data: { id: newId('job'), storeId, mode: 'test', kind: 'subscription.renew', subjectId: 'sub_metrics', nextAttemptAt: new Date(Date.now() - 300_000) },
    });
    expect(await lag()).toBeGreaterThanOrEqual(300);
    await service.db.prisma.job.delete({ where: { id: job.id } });

    // One delivery fails (retried later), the others succeed.
    receiver.behaviour = (n) => (n === 0 ? { status: 500 } : { status: 200 });
    await runner.runOnce();
    await waitUntil(() => receiver.received.length >= 3);
    expect(await outcome('succeeded')).toBe(before.succeeded + 2);
    expect(await outcome('retry_scheduled')).toBe(before.retry + 1);
    expect(await outcome('gave_up')).toBe(0);
    // The failed one waits for its retry: not due, so neither queued nor late.
    expect(await depth()).toBe(0);
    expect(await lag()).toBe(0);
  });

  it(onPostgres ? "reports this process's PostgreSQL pool" : 'leaves the pool gauges out on the embedded database (one in-process connection)', async () => {
    const { samples } = await scrape(metrics.url);
    if (!onPostgres) {
      expect(samples.filter((s) => s.name.startsWith('db_pool_'))).toEqual([]);
      return;
    }
    expect(one(samples, 'db_pool_max_clients')).toBe(10);
    const total = one(samples, 'db_pool_clients');
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(10);
    expect(one(samples, 'db_pool_idle_clients')).toBeLessThanOrEqual(total);
    expect(one(samples, 'db_pool_waiting_clients')).toBe(0);
  });
});

describe('configuration', () => {
  it('has no metrics listener unless METRICS_PORT is set', async () => {
    const config = loadConfig({ HOST: '10.0.0.5' });
    expect(config.metricsPort).toBeUndefined();
    expect(await startConfiguredMetrics(config, logger)).toBeUndefined();
    expect(metricsSink()).toBeUndefined();
    expect(loadConfig({ HOST: '10.0.0.5', METRICS_PORT: '9464' })).toMatchObject({ metricsPort: 9464, metricsHost: '10.0.0.5' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '127.0.0.2' }).metricsHost).toBe('127.0.0.2');
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT must be a port number/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('turns measuring off again when the listener closes', async () => {
    const server = await startConfiguredMetrics({ metricsPort: 0, metricsHost: '127.0.0.1' }, logger);
    expect(server).toBeDefined();
    expect(metricsSink()).toBeDefined();
    await server!.close();
    expect(metricsSink()).toBeUndefined();
  });
});

async function waitForMetrics(url: string, proc: ServiceProcess) {
  let done = false;
  void proc.exited.then(() => (done = true));
  await waitUntil(
    async () => {
      if (done) throw new Error(`the process exited: ${proc.output()}`);
      return fetch(`${url}/metrics`).then((r) => r.ok, () => false);
    },
    { timeoutMs: 60_000, intervalMs: 200, what: () => `metrics at ${url}: ${proc.output()}` },
  );
}

// Node processes that open a database (a WASM PostgreSQL on the embedded one): slow on a loaded machine.
describe('the server and worker processes with METRICS_PORT', { timeout: 120_000 }, () => {
  let dataDir: string;
  let pg: TestService | undefined;
  let dbEnv: Record<string, string>;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-metrics-'));
    if (onPostgres) {
      // A database of this file's own, migrated; the service itself is not used.
      pg = await startTestService({ env: { JOB_RUNNER: 'off' } });
      dbEnv = { DATABASE_URL: pg.db.url! };
    } else {
      dbEnv = { DATA_DIR: dataDir };
    }
  });
  afterAll(async () => {
    await pg?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the server serves /metrics on its own port and closes it on SIGTERM', async () => {
    const metricsPort = await closedPort();
    // Ready once the test listener answers /healthz (the metrics listener starts before it); that
    // one answered request is the one counted below.
    const proc = await startServiceProcess('server', { ...dbEnv, METRICS_PORT: String(metricsPort) });
    const url = `http://127.0.0.1:${metricsPort}`;
    try {
      const { samples } = await scrape(url);
      expect(one(samples, 'http_request_duration_seconds_count', { listener: 'test', method: 'GET', route: '/healthz', status: '200' })).toBe(1);
      expect(one(samples, 'webhook_queue_depth')).toBe(0);
      expect(one(samples, 'billing_worker_lag_seconds')).toBe(0);
      expect(find(samples, 'db_pool_max_clients')).toHaveLength(onPostgres ? 1 : 0);
      // Not on the service's listeners.
      expect((await fetch(`${proc.prodUrl}/metrics`)).status).toBe(404);
    } finally {
      expect(await proc.stop(), proc.output()).toEqual({ code: 0, signal: null });
    }
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });

  it('the worker serves /metrics and closes it on SIGTERM', async () => {
    const metricsPort = await closedPort();
    const proc = await startServiceProcess('worker', { ...dbEnv, METRICS_PORT: String(metricsPort) });
    const url = `http://127.0.0.1:${metricsPort}`;
    try {
      await waitForMetrics(url, proc);
      const { samples } = await scrape(url);
      expect(one(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(one(samples, 'webhook_deliveries_total', { outcome: 'succeeded' })).toBe(0);
      expect(one(samples, 'billing_worker_lag_seconds')).toBe(0);
      expect(find(samples, 'http_request_duration_seconds_count')).toEqual([]);
    } finally {
      expect(await proc.stop(), proc.output()).toEqual({ code: 0, signal: null });
    }
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });
});
