import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { contextFor, type RequestContext, type ServiceEnv } from '../context.js';
import { db, insertRows, sqlClient, tenantCondition, type Tenant } from '../db/tenant.js';
import { prepared } from '../db/rows.js';
import { newId } from '../lib/ids.js';
import { offsetClock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { claimDue, nextAttemptAfter, type Claimed } from './claim.js';
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
  /**
   * The work of several subjects of one store environment at once, when sharing transactions
   * and statements pays (renewals due together). Resolves to the error of each subject whose
   * work failed; the others succeeded.
   */
  runMany?(ctx: RequestContext, subjectIds: string[]): Promise<Map<string, unknown>>;
}

/** Schedules `kind` for `subjectId` at `dueAt` (store time) in the caller's transaction; scheduling again reschedules. */
export async function scheduleJob(ctx: RequestContext, kind: string, subjectId: string, dueAt: Date): Promise<void> {
  await scheduleJobs(ctx, kind, [{ subjectId, dueAt }]);
}

/** `scheduleJob` for many subjects in one statement, whatever their number. */
export async function scheduleJobs(ctx: RequestContext, kind: string, due: readonly { subjectId: string; dueAt: Date }[]): Promise<void> {
  const createdAt = ctx.clock.now();
  await insertRows(
    ctx,
    'Job',
    due.map((d) => ({ id: newId('job'), kind, subjectId: d.subjectId, status: 'pending', attemptCount: 0, nextAttemptAt: d.dueAt, leaseUntil: null, lastError: null, completedAt: null, createdAt })),
    { onConflict: { key: ['kind', 'subjectId'], update: ['status', 'attemptCount', 'nextAttemptAt', 'leaseUntil', 'lastError', 'completedAt'] } },
  );
}

/** The subject no longer needs the job (its work happened some other way). */
export async function cancelJob(ctx: RequestContext, kind: string, subjectId: string): Promise<void> {
  // Every settled payment and refund cancels its safety-net job: a prepared statement.
  await sqlClient(ctx).$executeRaw`${prepared} DELETE FROM "Job" WHERE "kind" = ${kind} AND "subjectId" = ${subjectId} AND "status" = 'pending' AND ${tenantCondition(ctx)}`;
}

export interface ScheduledJobsOptions {
  handlers: JobHandler[];
  /** The environment a job of `mode` runs in (its listener's base URL, for links in event payloads). */
  envFor(mode: Mode): ServiceEnv;
  logger: Logger;
  /** Jobs one round claims (default 200: renewals due together are worked in groups). */
  batchSize?: number;
  /**
   * How long one handler call (one job, or one group) may take before its claim lapses and
   * another worker runs the job again (default 60 s; handlers are safe to run twice, and a
   * processor adapter must time its calls out well within it). A batch's lease is this times the turns its
   * jobs may take, counted as if none shared a group: about 26 minutes for a full batch.
   */
  leaseMs?: number;
  /** Jobs of a kind with `runMany` are handed over this many at a time. */
  groupSize?: number;
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
  const batchSize = options.batchSize ?? 200;
  const leaseMs = options.leaseMs ?? 60_000;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const groupSize = Math.max(1, options.groupSize ?? 50);
  const recordOutcomes = async (system: PrismaClient, handler: JobHandler, at: Date, outcomes: { claim: Claimed; failed: boolean; error?: unknown }[]) => {
    // Only while a claim still holds: a worker whose lease ran out does not overwrite a newer attempt.
    const succeeded = outcomes.filter((o) => !o.failed).map((o) => o.claim);
    for (const attemptCount of new Set(succeeded.map((c) => c.attemptCount))) {
      const ids = succeeded.filter((c) => c.attemptCount === attemptCount).map((c) => c.id);
      await system.job.updateMany({ where: { id: { in: ids }, status: 'pending', attemptCount }, data: { status: 'succeeded', completedAt: at, lastError: null, leaseUntil: null } });
    }
    for (const { claim, failed, error } of outcomes) {
      if (!failed) continue;
      const message = error instanceof Error ? error.message : String(error);
      options.logger.warn({ err: error, jobId: claim.id, kind: handler.kind, attempt: claim.attemptCount }, 'job attempt failed');
      const next = nextAttemptAfter(handler.retryDelaysMs, claim.attemptCount, at);
      await system.job.updateMany({
        where: { id: claim.id, status: 'pending', attemptCount: claim.attemptCount },
        data: next ? { nextAttemptAt: next, lastError: message, leaseUntil: null } : { status: 'failed', completedAt: at, lastError: message, leaseUntil: null },
      });
    }
  };
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
      // Tasks: one job each, or up to groupSize jobs of one kind and store clock for runMany.
      const tasks: Claimed[][] = [];
      const open = new Map<string, Claimed[]>();
      for (const c of claimed) {
        const kind = byId.get(c.id)!.kind;
        byKind[kind] = (byKind[kind] ?? 0) + 1;
        if (!handlers.get(kind)!.runMany) {
          tasks.push([c]);
          continue;
        }
        const key = `${kind}\u0000${c.storeId}\u0000${c.mode}\u0000${c.offsetMs}`;
        let group = open.get(key);
        if (!group || group.length >= groupSize) {
          open.set(key, (group = []));
          tasks.push(group);
        }
        group.push(c);
      }
      const runTask = async (task: Claimed[]) => {
        const first = task[0]!;
        const handler = handlers.get(byId.get(first.id)!.kind)!;
        const env = options.envFor(first.mode);
        const ctx = contextFor({ ...env, clock: offsetClock(env.clock, first.offsetMs) }, first.storeId, { traceId: `job:${first.id}`, source: 'worker' });
        const errors = new Map<string, unknown>();
        try {
          if (task.length === 1 || !handler.runMany) await handler.run(ctx, byId.get(first.id)!.subjectId);
          else for (const [subjectId, err] of await handler.runMany(ctx, task.map((c) => byId.get(c.id)!.subjectId))) errors.set(subjectId, err);
        } catch (err) {
          for (const c of task) errors.set(byId.get(c.id)!.subjectId, err);
        }
        await recordOutcomes(system, handler, ctx.clock.now(), task.map((c) => {
          const subjectId = byId.get(c.id)!.subjectId;
          return { claim: c, failed: errors.has(subjectId), error: errors.get(subjectId) };
        }));
      };
      let cursor = 0;
      const lanes = Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
        while (cursor < tasks.length) await runTask(tasks[cursor++]!);
      });
      await Promise.all(lanes);
      return { claimed: claimed.length, byKind };
    },
  };
}
