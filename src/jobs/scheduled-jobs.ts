import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { contextFor, type RequestContext, type ServiceEnv } from '../context.js';
import { db, type Tenant } from '../db/tenant.js';
import { newId } from '../lib/ids.js';
import { offsetClock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { claimDue, nextAttemptAfter } from './claim.js';
import type { BatchCounts, JobKind } from './job-runner.js';

/**
 * Work on one subject at a time, kept in the Job table: reconciling a cut-off payment now,
 * renewing a subscription or retrying a failed charge next. A handler runs in the subject's
 * store context, by that store's clock, and must be safe to run twice: a worker that dies
 * after the work but before recording it leaves the job to be claimed again.
 */
export interface JobHandler {
  readonly kind: string;
  /** Waits after the 1st, 2nd, … failed attempt; a failure beyond them fails the job for good. */
  readonly retryDelaysMs: readonly number[];
  run(ctx: RequestContext, subjectId: string): Promise<void>;
}

/** Schedules `kind` for `subjectId` at `dueAt` (store time) in the caller's transaction; scheduling again reschedules. */
export async function scheduleJob(ctx: RequestContext, kind: string, subjectId: string, dueAt: Date): Promise<void> {
  const state = { status: 'pending', attemptCount: 0, nextAttemptAt: dueAt, lastError: null, completedAt: null };
  await db(ctx).job.upsert({
    where: { kind_subjectId: { kind, subjectId } },
    create: { id: newId('job'), kind, subjectId, createdAt: ctx.clock.now(), ...state },
    update: state,
  });
}

/** The subject no longer needs the job (its work happened some other way). */
export async function cancelJob(ctx: RequestContext, kind: string, subjectId: string): Promise<void> {
  await db(ctx).job.deleteMany({ where: { kind, subjectId, status: 'pending' } });
}

export interface ScheduledJobsOptions {
  handlers: JobHandler[];
  /** The environment a job of `mode` runs in (its listener's base URL, for links in event payloads). */
  envFor(mode: Mode): ServiceEnv;
  logger: Logger;
  batchSize?: number;
  /** How long one handler may take before its claim lapses and another worker runs the job again. */
  leaseMs?: number;
  /**
   * Jobs of a batch run this many at a time: each is its own subject (a subscription, a
   * checkout) under its own row lock, and most of a job's time is waiting on the database and
   * the processor, so a worker keeps several going.
   */
  concurrency?: number;
}

/** The Job table as a kind of the job runner. */
export function scheduledJobs(options: ScheduledJobsOptions): JobKind {
  const handlers = new Map(options.handlers.map((h) => [h.kind, h]));
  const batchSize = options.batchSize ?? 50;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  return {
    name: 'jobs',
    batchSize,
    async runBatch(system: PrismaClient, now: Date, only?: Tenant): Promise<BatchCounts> {
      const claimed = await claimDue(system, {
        table: 'Job',
        now,
        limit: batchSize,
        // Jobs of a batch run `concurrency` at a time: one job's lease is leaseMs, and each
        // further job adds its share of a turn (ceil(n / concurrency) turns at most).
        lease: { perRowMs: Math.ceil(leaseMs / concurrency), marginMs: leaseMs - Math.ceil(leaseMs / concurrency) },
        where: Prisma.sql`j."kind" IN (${Prisma.join([...handlers.keys()])})`,
        only,
      });
      const byKind: Record<string, number> = {};
      if (!claimed.length) return { claimed: 0, byKind };
      const jobs = await system.job.findMany({ where: { id: { in: claimed.map((c) => c.id) } }, select: { id: true, kind: true, subjectId: true } });
      const byId = new Map(jobs.map((j) => [j.id, j]));
      const runOne = async (c: (typeof claimed)[number]) => {
        const job = byId.get(c.id)!;
        const handler = handlers.get(job.kind)!;
        byKind[job.kind] = (byKind[job.kind] ?? 0) + 1;
        const env = options.envFor(c.mode);
        const ctx = contextFor({ ...env, clock: offsetClock(env.clock, c.offsetMs) }, c.storeId, { traceId: `job:${c.id}`, source: 'worker' });
        let error: string | null = null;
        try {
          await handler.run(ctx, job.subjectId);
        } catch (err) {
          error = err instanceof Error ? err.message : String(err);
          options.logger.warn({ err, jobId: c.id, kind: job.kind, attempt: c.attemptCount }, 'job attempt failed');
        }
        const at = ctx.clock.now();
        const next = error === null ? null : nextAttemptAfter(handler.retryDelaysMs, c.attemptCount, at);
        // Only while this claim still holds: a worker whose lease ran out does not overwrite a newer attempt.
        await system.job.updateMany({
          where: { id: c.id, status: 'pending', attemptCount: c.attemptCount },
          data:
            error === null
              ? { status: 'succeeded', completedAt: at, lastError: null }
              : next
                ? { nextAttemptAt: next, lastError: error }
                : { status: 'failed', completedAt: at, lastError: error },
        });
      };
      let cursor = 0;
      const lanes = Array.from({ length: Math.min(concurrency, claimed.length) }, async () => {
        while (cursor < claimed.length) await runOne(claimed[cursor++]!);
      });
      await Promise.all(lanes);
      return { claimed: claimed.length, byKind };
    },
  };
}
