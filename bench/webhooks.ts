/**
 * Webhook delivery throughput: events delivered per second to a local receiver by one
 * `npm run worker` process on PostgreSQL, against bare signed POSTs from one process (same
 * events, same signing, same HTTP client, same receiver, same run).
 *
 * The worker side: EVENTS deliveries spread over ENDPOINTS endpoints of the bench store are
 * written while the endpoints are disabled; the worker starts and idles; then the endpoints
 * are enabled and the clock runs until the receiver has counted every delivery. The worker
 * sends one endpoint's events one after another and endpoints in parallel, so the baseline
 * runs ENDPOINTS sequential loops.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/database.js';
import { newId } from '../src/lib/ids.js';
import { dataScope } from '../src/db/tenant.js';
import { sealSigningSecret } from '../src/modules/webhooks/endpoint-secrets.js';
import { deliveryBody, generateSigningSecret } from '../src/modules/webhooks/signing.js';
import { childEnv, freePorts, runTs, startTs, stopChild, waitForHealthy } from './children.js';
import { benchEvent } from './webhook-payload.js';

export const ENDPOINTS = 10;

export interface WebhookBench {
  events: number;
  endpoints: number;
  bodyBytes: number;
  workerPerSec: number;
  baselinePerSec: number;
  /** The worker process's CPU time per delivered event, when /proc exists. */
  workerCpuMsPerEvent: number | null;
  problems: string[];
}

async function cpuMs(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

async function receivedCount(receiverBase: string): Promise<number> {
  return Number(await (await fetch(`${receiverBase}/count`)).text());
}

async function waitForCount(receiverBase: string, target: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await receivedCount(receiverBase)) < target) {
    if (Date.now() > deadline) throw new Error(`the receiver counted ${await receivedCount(receiverBase)} of ${target} deliveries after ${timeoutMs / 1000} s`);
    await sleep(20);
  }
}

export async function benchWebhookDelivery(
  databaseUrl: string,
  storeId: string,
  durationSec: number,
  defer: (name: string, run: () => Promise<void>) => void,
): Promise<WebhookBench> {
  const problems: string[] = [];
  const events = Math.max(500, Math.round(600 * durationSec));
  const [receiverPort] = (await freePorts(1)) as [number];
  const receiverBase = `http://127.0.0.1:${receiverPort}`;
  const receiver = startTs('webhook receiver', 'bench/webhook-receiver.ts', [], childEnv({ PORT: String(receiverPort) }));
  defer('stop webhook receiver', () => stopChild(receiver));
  await waitForHealthy(receiver, `${receiverBase}/healthz`);

  console.log(`webhooks: writing ${events} deliveries over ${ENDPOINTS} disabled endpoints`);
  const db = await openDatabase({ databaseUrl, poolSize: 2 });
  const endpointIds: string[] = [];
  try {
    for (let e = 0; e < ENDPOINTS; e++) {
      const id = newId('webhook');
      endpointIds.push(id);
      await db.prisma.webhookEndpoint.create({
        data: { id, storeId, mode: 'test', url: `${receiverBase}/hook`, events: ['checkout.completed'], enabled: false, secretCiphertext: await sealSigningSecret(dataScope(db.prisma), 'test', generateSigningSecret()) },
      });
    }
    const all = Array.from({ length: events }, (_, i) => benchEvent(i));
    const due = new Date(Date.now() - 1_000);
    await db.prisma.event.createMany({ data: all.map((ev) => ({ id: ev.id, storeId, mode: 'test' as const, type: ev.type, payload: ev.payload as object, createdAt: ev.createdAt })) });
    await db.prisma.webhookDelivery.createMany({
      data: all.map((ev, i) => ({ id: `dlv_bench_${String(i).padStart(7, '0')}`, storeId, mode: 'test' as const, eventId: ev.id, endpointId: endpointIds[i % ENDPOINTS]!, nextAttemptAt: due })),
    });

    const worker = startTs('job worker', 'src/worker.ts', [], childEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }));
    defer('stop webhook worker', () => stopChild(worker));
    const ready = Date.now() + 60_000;
    while (!worker.output().includes('job worker running')) {
      if (Date.now() > ready || worker.proc.exitCode !== null) throw new Error(`the webhook worker did not start:\n${worker.output()}`);
      await sleep(50);
    }
    await sleep(1_000);
    const cpuBefore = await cpuMs(worker.proc.pid);
    const started = performance.now();
    await db.prisma.webhookEndpoint.updateMany({ where: { id: { in: endpointIds } }, data: { enabled: true } });
    await waitForCount(receiverBase, events, 300_000);
    const workerMs = performance.now() - started;
    const cpuAfter = await cpuMs(worker.proc.pid);
    await stopChild(worker);
    const workerPerSec = (events * 1000) / workerMs;
    console.log(`  webhooks: one worker: ${events} events in ${(workerMs / 1000).toFixed(2)} s = ${workerPerSec.toFixed(0)} events/s`);

    const states = await db.prisma.webhookDelivery.groupBy({ by: ['status'], where: { endpointId: { in: endpointIds } }, _count: true });
    const attempts = await db.prisma.deliveryAttempt.count({ where: { delivery: { endpointId: { in: endpointIds } } } });
    const succeeded = states.find((s) => s.status === 'succeeded')?._count ?? 0;
    if (succeeded !== events || attempts !== events) problems.push(`webhooks: ${succeeded} deliveries succeeded and ${attempts} attempts recorded for ${events} events`);

    console.log(`webhooks baseline: ${ENDPOINTS} loops of signed POSTs from one process, no database`);
    const out = await runTs('webhook baseline', 'bench/webhook-baseline.ts', [], childEnv({ RECEIVER_URL: `${receiverBase}/hook`, EVENTS: String(events), CONCURRENCY: String(ENDPOINTS) }));
    const baseline = JSON.parse(out) as { events: number; ms: number; failures: number };
    if (baseline.failures) problems.push(`webhooks baseline: ${baseline.failures} POSTs were not answered 200`);
    const total = await receivedCount(receiverBase);
    if (total !== 2 * events) problems.push(`webhooks: the receiver counted ${total} POSTs, expected ${2 * events}`);
    const baselinePerSec = (events * 1000) / baseline.ms;
    console.log(`  webhooks: baseline: ${events} events in ${(baseline.ms / 1000).toFixed(2)} s = ${baselinePerSec.toFixed(0)} events/s`);
    await stopChild(receiver);
    return {
      events,
      endpoints: ENDPOINTS,
      bodyBytes: Buffer.byteLength(deliveryBody(all[0]!)),
      workerPerSec,
      baselinePerSec,
      workerCpuMsPerEvent: cpuBefore !== null && cpuAfter !== null ? (cpuAfter - cpuBefore) / events : null,
      problems,
    };
  } finally {
    await db.close();
  }
}

export function formatWebhookBench(r: WebhookBench): string {
  const rows = [
    ['target', 'events', 'endpoints (parallel)', 'events/s', 'ours/baseline'],
    ['webhooks: one worker (postgres)', String(r.events), String(r.endpoints), r.workerPerSec.toFixed(0), (r.workerPerSec / r.baselinePerSec).toFixed(2)],
    ['webhooks: bare signed POSTs', String(r.events), String(r.endpoints), r.baselinePerSec.toFixed(0), '—'],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => `${'-'.repeat(w + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`;
  return [line(rows[0]!), rule, ...rows.slice(1).map(line)].join('\n');
}
