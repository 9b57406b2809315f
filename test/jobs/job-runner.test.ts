import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { dataScope, inTransaction } from '../../src/db/tenant.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { scheduledJobs, scheduleJob, type JobHandler } from '../../src/jobs/scheduled-jobs.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/logger.js';
import { storeContext, type TestContext } from '../support/context.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * The job runner on the Job table: due by each store's clock, run in the store's context,
 * retried on the kind's schedule, and never recorded by a worker whose claim has lapsed.
 */
const HOUR = 60 * 60 * 1000;
const logger = createLogger('silent');

describe('job runner', () => {
  let db: TestDatabase;
  let clock: ManualClock;
  let a: TestContext;
  let b: TestContext;
  const runs: { subject: string; storeId: string; at: number }[] = [];
  let failures = 0;

  const handlers: JobHandler[] = [
    {
      kind: 'test.record',
      retryDelaysMs: [],
      async run(ctx: RequestContext, subjectId) {
        runs.push({ subject: subjectId, storeId: ctx.storeId, at: ctx.clock.now().getTime() });
      },
    },
    {
      kind: 'test.flaky',
      retryDelaysMs: [60_000, 300_000],
      async run() {
        failures++;
        throw new Error(`processor down (${failures})`);
      },
    },
  ];

  const runner = (leaseMs?: number) =>
    new JobRunner({
      db: db.prisma,
      clock,
      logger,
      kinds: [scheduledJobs({ handlers, logger, leaseMs, envFor: (mode) => ({ data: dataScope(db.prisma), mode, clock, baseUrl: 'http://billing.test' }) })],
    });
  const schedule = (ctx: RequestContext, kind: string, subject: string, dueAt: number) => inTransaction(ctx, (tx) => scheduleJob(tx, kind, subject, new Date(dueAt)));
  const job = (subject: string) => db.prisma.job.findFirstOrThrow({ where: { subjectId: subject } });

  beforeAll(async () => {
    db = await openTestDatabase();
    clock = new ManualClock(Date.UTC(2026, 0, 15, 12));
    a = await storeContext(db, 'test', clock);
    b = await storeContext(db, 'test', clock);
  });
  afterAll(() => db?.close());

  it('runs a job when its own store’s clock reaches it, in that store’s context', async () => {
    const t0 = clock.now().getTime();
    await schedule(a, 'test.record', 'a-1', t0 + HOUR);
    await schedule(b, 'test.record', 'b-1', t0 + HOUR);
    // Store A's test clock is two hours ahead of real time; B's is real time.
    await db.prisma.storeClock.create({ data: { storeId: a.storeId, mode: 'test', offsetMs: BigInt(2 * HOUR), updatedAt: clock.now() } });

    expect(await runner().runOnce()).toEqual({ jobs: 1 });
    expect(runs).toEqual([{ subject: 'a-1', storeId: a.storeId, at: t0 + 2 * HOUR }]);
    expect(await job('a-1')).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(await job('b-1')).toMatchObject({ status: 'pending', attemptCount: 0 });

    clock.advance(HOUR);
    expect(await runner().runUntilIdle({ storeId: b.storeId, mode: 'test' })).toEqual({ jobs: 1 });
    expect(runs.map((r) => r.subject)).toEqual(['a-1', 'b-1']);
    expect(await runner().runOnce()).toEqual({ jobs: 0 });
  });

  it('retries a failing job on its schedule, then fails it for good with the last error', async () => {
    const t0 = clock.now().getTime();
    await schedule(b, 'test.flaky', 'flaky-1', t0);
    expect(await runner().runOnce()).toEqual({ jobs: 1 });
    expect(await job('flaky-1')).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: new Date(t0 + 60_000), lastError: 'processor down (1)' });

    clock.set(t0 + 59_999);
    expect(await runner().runOnce()).toEqual({ jobs: 0 });
    clock.set(t0 + 60_000);
    expect(await runner().runOnce()).toEqual({ jobs: 1 });
    expect(await job('flaky-1')).toMatchObject({ status: 'pending', attemptCount: 2, nextAttemptAt: new Date(t0 + 360_000) });

    clock.set(t0 + 360_000);
    expect(await runner().runOnce()).toEqual({ jobs: 1 });
    expect(await job('flaky-1')).toMatchObject({ status: 'failed', attemptCount: 3, lastError: 'processor down (3)', completedAt: new Date(t0 + 360_000) });
    clock.advance(24 * HOUR);
    expect(await runner().runOnce()).toEqual({ jobs: 0 });
  });

  it('lets another worker take a job whose claim lapsed, and ignores the late worker’s outcome', async () => {
    const t0 = clock.now().getTime();
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    let calls = 0;
    handlers.push({
      kind: 'test.slow',
      retryDelaysMs: [],
      async run() {
        calls++;
        if (calls === 1) await stalled; // the first worker hangs here
      },
    });
    await schedule(a, 'test.slow', 'slow-1', t0 - 2 * HOUR); // due by A's clock (two hours ahead)
    const first = runner(30_000).runOnce();
    await expect.poll(() => calls).toBe(1);

    // The claim holds for its lease: nobody else takes the job meanwhile.
    expect(await runner(30_000).runOnce()).toEqual({ jobs: 0 });
    clock.advance(30_000);
    expect(await runner(30_000).runOnce()).toEqual({ jobs: 1 });
    expect(await job('slow-1')).toMatchObject({ status: 'succeeded', attemptCount: 2 });

    // The stalled worker finishes late: its claim is no longer the job's, so it records nothing.
    release();
    expect(await first).toEqual({ jobs: 1 });
    expect(await job('slow-1')).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    expect(calls).toBe(2);
  });

  it('keeps a claim while its store’s test clock jumps forward: the job is not claimed and run a second time', async () => {
    const t0 = clock.now().getTime();
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    let calls = 0;
    handlers.push({
      kind: 'test.held',
      retryDelaysMs: [],
      async run() {
        calls++;
        await stalled;
      },
    });
    const c = await storeContext(db, 'test', clock);
    await schedule(c, 'test.held', 'held-1', t0);
    const first = runner(30_000).runOnce();
    await expect.poll(() => calls).toBe(1);

    // The store's clock moves a month ahead (a test clock advance) while the attempt runs.
    await db.prisma.storeClock.create({ data: { storeId: c.storeId, mode: 'test', offsetMs: BigInt(31 * 24 * HOUR), updatedAt: clock.now() } });
    expect(await runner(30_000).runOnce()).toEqual({ jobs: 0 });
    release();
    expect(await first).toEqual({ jobs: 1 });
    expect(await job('held-1')).toMatchObject({ status: 'succeeded', attemptCount: 1, leaseUntil: null });
    expect(calls).toBe(1);
  });

  it('runs each due job once when two workers claim at the same time', async () => {
    const t0 = clock.now().getTime();
    runs.length = 0;
    for (let i = 0; i < 30; i++) await schedule(b, 'test.record', `many-${i}`, t0);
    const [x, y] = [runner(), runner()];
    const drain = async (r: JobRunner) => {
      let total = 0;
      for (;;) {
        const n = (await r.runOnce()).jobs ?? 0;
        if (!n) return total;
        total += n;
      }
    };
    const [nx, ny] = await Promise.all([drain(x), drain(y)]);
    expect(nx + ny).toBe(30);
    expect(runs.map((r) => r.subject).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `many-${i}`).sort());
  });

  it('hands a grouping kind its due jobs by store, a group at a time, and retries only the subjects that failed', async () => {
    const t0 = clock.now().getTime();
    const groups: { storeId: string; subjects: string[] }[] = [];
    handlers.push({
      kind: 'test.group',
      retryDelaysMs: [60_000],
      run: async () => {
        throw new Error('a grouping kind is handed its jobs through runMany');
      },
      async runMany(ctx, subjectIds) {
        groups.push({ storeId: ctx.storeId, subjects: [...subjectIds].sort() });
        return new Map(subjectIds.filter((s) => s.endsWith('-bad')).map((s) => [s, new Error(`declined ${s}`)]));
      },
    });
    // B's jobs are due by real time, A's by its clock two hours ahead: one group per store clock.
    for (const s of ['g-1', 'g-2', 'g-bad']) await schedule(b, 'test.group', `b-${s}`, t0);
    for (const s of ['g-1', 'g-2']) await schedule(a, 'test.group', `a-${s}`, t0);
    expect(await runner().runOnce()).toEqual({ jobs: 5 });
    expect(groups).toEqual(
      expect.arrayContaining([
        { storeId: a.storeId, subjects: ['a-g-1', 'a-g-2'] },
        { storeId: b.storeId, subjects: ['b-g-1', 'b-g-2', 'b-g-bad'] },
      ]),
    );
    expect(groups).toHaveLength(2);
    expect(await job('b-g-1')).toMatchObject({ status: 'succeeded' });
    expect(await job('b-g-bad')).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: new Date(t0 + 60_000), lastError: 'declined b-g-bad' });
    clock.set(t0 + 60_000);
    groups.length = 0;
    expect(await runner().runOnce()).toEqual({ jobs: 1 });
    // A group of one goes through run(), which this kind refuses: the job fails for good.
    expect(await job('b-g-bad')).toMatchObject({ status: 'failed', lastError: 'a grouping kind is handed its jobs through runMany' });
  });
});
