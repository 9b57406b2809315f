/** What the benchmark prints: the machine, then one table row per target and concurrency. */
import os from 'node:os';
import type { PurchaseRun } from './checkout.js';
import type { LoadResult } from './load.js';

/**
 * "ours" is the service as it ships (product reads served from its change-feed-backed cache);
 * "ours, READ_CACHE=off" is every request going to the database through Prisma.
 */
export type TargetName =
  | 'postgres/ours'
  | 'postgres/ours, READ_CACHE=off'
  | 'embedded/ours'
  | 'embedded/ours, READ_CACHE=off'
  | 'baseline pg'
  | 'graph: postgres/ours'
  | 'graph: baseline pg'
  | 'graph 500: postgres/ours'
  | 'graph 500: baseline pg';

/** The baseline row each target is compared with. */
function baselineOf(target: TargetName): TargetName {
  return target.startsWith('graph 500: ') ? 'graph 500: baseline pg' : target.startsWith('graph: ') ? 'graph: baseline pg' : 'baseline pg';
}

export interface Row extends LoadResult {
  target: TargetName;
}

/** The target from the brief: the service on PostgreSQL keeps half the bare-pg throughput at 50 connections. */
export const TARGET_CONNECTIONS = 50;
export const TARGET_RATIO = 0.5;

export function machineDescription(postgresVersion: string): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const memGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  return [
    `CPU:        ${model} x ${cpus.length}`,
    `Memory:     ${memGiB} GiB`,
    `OS:         ${os.type()} ${os.release()} (${os.arch()})`,
    `Node:       ${process.version}`,
    // Other work on the machine skews every row; the load average at the start makes that visible.
    `Load avg:   ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (1/5/15 min, at start)`,
    `PostgreSQL: ${postgresVersion}`,
  ].join('\n');
}

function baselineRps(rows: Row[], target: TargetName, connections: number): number | undefined {
  return rows.find((r) => r.target === target && r.connections === connections)?.requestsPerSec;
}

/** ours / baseline at the same concurrency; the baseline row itself shows none. */
export function ratio(rows: Row[], row: Row): number | undefined {
  const baseline = baselineOf(row.target);
  if (row.target === baseline) return undefined;
  const base = baselineRps(rows, baseline, row.connections);
  return base ? row.requestsPerSec / base : undefined;
}

/** autocannon's latency histogram counts whole milliseconds, so 0 means "under 1 ms". */
function ms(value: number): string {
  return value < 1 ? '<1' : value.toFixed(0);
}

/** A Markdown table, so the output can be pasted into RESULTS.md as it is. */
export function formatTable(rows: Row[]): string {
  const header = ['target', 'connections', 'req/s (avg)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ours/baseline req/s'];
  const body = rows.map((r) => {
    const q = ratio(rows, r);
    return [r.target, String(r.connections), r.requestsPerSec.toFixed(0), ms(r.p50Ms), ms(r.p99Ms), String(r.non2xx), String(r.errors), q === undefined ? '—' : q.toFixed(2)];
  });
  return markdownTable(header, body);
}

export interface PurchaseRow extends PurchaseRun {
  target: 'checkout: postgres/ours' | 'checkout: baseline pg';
}

/** Completed purchases per second; latency is one whole purchase (3 HTTP requests for the service, 1 + 9 SQL statements for the baseline). */
export function formatPurchaseTable(rows: PurchaseRow[]): string {
  const base = rows.find((r) => r.target === 'checkout: baseline pg')?.purchasesPerSec;
  const header = ['target', 'buyers', 'purchases/s', 'p50 ms', 'p99 ms', 'purchases (all)', 'failures', 'ours/baseline'];
  const body = rows.map((r) => [
    r.target,
    String(r.buyers),
    r.purchasesPerSec.toFixed(1),
    r.p50Ms.toFixed(1),
    r.p99Ms.toFixed(1),
    String(r.completed),
    String(r.failures),
    r.target === 'checkout: baseline pg' || !base ? '—' : (r.purchasesPerSec / base).toFixed(2),
  ]);
  return markdownTable(header, body);
}

/** First two columns left-aligned, the numbers right-aligned. */
function markdownTable(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i < 2 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

export function targetVerdict(rows: Row[]): string {
  const goal = `PostgreSQL at ${TARGET_CONNECTIONS} connections: at least half the baseline's throughput (ratio >= ${TARGET_RATIO})`;
  const verdict = (target: TargetName) => {
    const row = rows.find((r) => r.target === target && r.connections === TARGET_CONNECTIONS);
    const q = row && ratio(rows, row);
    if (q === undefined) return `${target}: NOT MEASURED`;
    return `${target}: ${q >= TARGET_RATIO ? 'MET' : 'NOT MET'} (ratio ${q.toFixed(2)})`;
  };
  return `${goal}\n  ${verdict('postgres/ours')}  (as shipped)\n  ${verdict('postgres/ours, READ_CACHE=off')}  (every read through Prisma)`;
}
