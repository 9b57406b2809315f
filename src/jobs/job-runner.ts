import type { PrismaClient } from '../generated/prisma/client.js';
import type { Tenant } from '../db/tenant.js';
import { releaseHeldLeases } from './claim.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../logger.js';

/**
 * One kind of work that happens because time passed (webhook deliveries, checkout
 * reconciliation, later renewals and dunning). A round claims a batch with `claimDue` and
 * works it off with no transaction open; outcomes are recorded by the kind, each checking
 * that its claim still holds.
 */
/** What one batch claimed: in all, and by the kind of work (`subscription.renew`, `webhook.delivery`). */
export interface BatchCounts {
  claimed: number;
  byKind: Record<string, number>;
}

export interface JobKind {
  readonly name: string;
  /**
   * Claims and runs one batch of due work. With `overlap` (the runner's own loop), a kind may
   * answer once its batch is claimed and under way, and finish it while the next is claimed;
   * `settle` then waits for what is still under way.
   */
  runBatch(db: PrismaClient, now: Date, only?: Tenant, overlap?: boolean): Promise<BatchCounts>;
  /** Items one round claims at most; a full batch means there may be more. */
  readonly batchSize: number;
  /** Resolves when no batch of this kind is under way any more (kinds that overlap batches). */
  settle?(): Promise<void>;
}

export interface JobRunnerOptions {
  db: PrismaClient;
  clock: Clock;
  logger: Logger;
  kinds: JobKind[];
}

/**
 * The one job runner: the server runs it in-process, `npm run worker` on its own; any number
 * may run against one PostgreSQL database, since every claim skips rows another worker holds.
 */
export class JobRunner {
  private readonly db: PrismaClient;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly kinds: JobKind[];
  private loop: Promise<void> | undefined;
  private stopped = false;
  private cancelSleep: (() => void) | undefined;

  constructor(opts: JobRunnerOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.kinds = opts.kinds;
  }

  private async batches(only?: Tenant, kinds?: readonly string[], overlap = false): Promise<Record<string, BatchCounts>> {
    const counts: Record<string, BatchCounts> = {};
    for (const kind of this.kinds) {
      if (kinds && !kinds.includes(kind.name)) continue;
      counts[kind.name] = await kind.runBatch(this.db, this.clock.now(), only, overlap);
    }
    return counts;
  }

  /** Waits for batches the loop left under way. */
  private async settle(): Promise<void> {
    await Promise.all(this.kinds.map((k) => k.settle?.()));
  }

  /** One batch of every kind that is due now, run to the end; items claimed, by runner kind. */
  async runOnce(only?: Tenant): Promise<Record<string, number>> {
    await this.settle();
    return Object.fromEntries(Object.entries(await this.batches(only)).map(([name, b]) => [name, b.claimed]));
  }

  /** Every kind until nothing is due; items claimed, by runner kind. */
  runUntilIdle(only?: Tenant): Promise<Record<string, number>> {
    return this.drain(only, undefined, (name, batch) => [[name, batch.claimed]]);
  }

  /**
   * The runner kinds named (all when none are) until nothing is due, with the items run by the
   * kind of work (`subscription.renew`): what moving a store's test clock runs.
   */
  runDueWork(only?: Tenant, kinds?: readonly string[]): Promise<Record<string, number>> {
    return this.drain(only, kinds, (_name, batch) => Object.entries(batch.byKind));
  }

  /** Batches until one claims nothing, adding up what `tally` reads from each. */
  private async drain(only: Tenant | undefined, kinds: readonly string[] | undefined, tally: (name: string, batch: BatchCounts) => [string, number][]): Promise<Record<string, number>> {
    const total: Record<string, number> = {};
    await this.settle();
    for (;;) {
      let claimed = 0;
      for (const [name, batch] of Object.entries(await this.batches(only, kinds))) {
        claimed += batch.claimed;
        for (const [key, n] of tally(name, batch)) total[key] = (total[key] ?? 0) + n;
      }
      if (claimed === 0) return total;
    }
  }

  /** Rounds until stop(): at once again while some kind's batch was full, else after `intervalMs`. */
  start(intervalMs = 500): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        let busy = false;
        try {
          // Kinds may overlap batches here: the next is claimed while the last one finishes.
          const counts = await this.batches(undefined, undefined, true);
          busy = this.kinds.some((k) => (counts[k.name]?.claimed ?? 0) >= k.batchSize);
        } catch (err) {
          this.logger.warn({ err }, 'job round failed');
        }
        if (!this.stopped && !busy) await this.sleep(intervalMs);
      }
    })();
  }

  /**
   * Ends the loop after the round in progress (its outcomes are recorded, not abandoned). With
   * a deadline, waits that long at most; then every claim whose outcome is not recorded is
   * handed back (due again at once, for another process or the next start) rather than left
   * leased until its lease runs out. Answers whether the work finished in time.
   */
  async stop(deadlineMs = Infinity): Promise<boolean> {
    this.stopped = true;
    this.cancelSleep?.();
    const finished = (async () => {
      await this.loop;
      await this.settle();
    })();
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      finished.then(() => true),
      ...(Number.isFinite(deadlineMs) ? [new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), deadlineMs)))] : []),
    ]);
    clearTimeout(timer);
    if (!inTime) this.logger.warn({ deadlineMs }, 'job rounds still under way at the shutdown deadline; their claims are handed back');
    const released = await releaseHeldLeases(this.db);
    if (released) this.logger.info({ released }, 'handed back claimed work');
    this.loop = undefined;
    return inTime;
  }

  /** Whether the loop runs (for readiness). */
  get running(): boolean {
    return this.loop !== undefined && !this.stopped;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.cancelSleep = done;
    });
  }
}
