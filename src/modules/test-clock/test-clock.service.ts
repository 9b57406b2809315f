import type { RequestContext } from '../../context.js';
import { CLOCK_CHANGES } from '../../caches.js';
import { afterCommit, db, inTransaction, notifyOnCommit } from '../../db/tenant.js';
import { offsetClock } from '../../lib/clock.js';
import { AppError, invalidField } from '../../lib/errors.js';
import type { AdvanceTestClockInput } from './test-clock.schemas.js';

/**
 * Each store's test environment has its own clock: real time plus an offset the store moves
 * forward to see renewals, retries and expiries happen without waiting. Production always
 * runs on real time. Every context of the test environment reads time from its store's clock
 * (`withStoreClock`); the job runner judges due work by it (src/jobs/claim.ts).
 */
export interface TestClock {
  now: Date;
  offsetMs: number;
}

/** The store's offset in this environment: 0 in production and until the clock is first moved. */
async function offsetOf(ctx: RequestContext): Promise<number> {
  if (ctx.mode !== 'test') return 0;
  const row = await db(ctx).storeClock.findFirst({ select: { offsetMs: true } });
  return Number(row?.offsetMs ?? 0n);
}

/**
 * `offsetOf` through the process's cache: every request of the test environment needs it, and
 * it changes only when the store advances its clock (which evicts it here and, through the
 * change feed, in every other process).
 */
const cachedOffsetOf = (ctx: RequestContext) => (ctx.mode === 'test' && ctx.caches ? ctx.caches.clocks.get(ctx.storeId, () => offsetOf(ctx)) : offsetOf(ctx));

/** The context on its store's clock: what transports build for every request of the test environment. */
export async function withStoreClock(ctx: RequestContext): Promise<RequestContext> {
  const offset = await cachedOffsetOf(ctx);
  const base = baseClockOf(ctx);
  return { ...ctx, clock: offsetClock(base, offset), baseClock: base };
}

/** The service's own clock under a context's store clock. */
const baseClockOf = (ctx: RequestContext) => ctx.baseClock ?? ctx.clock;

function requireTestEnvironment(ctx: RequestContext): void {
  // Production has no test clock: there, the route does not exist.
  if (ctx.mode !== 'test') throw new AppError('not_found', 'The test clock exists only in the test environment');
}

export async function getTestClock(ctx: RequestContext): Promise<TestClock> {
  requireTestEnvironment(ctx);
  const offsetMs = await offsetOf(ctx);
  return { now: new Date(baseClockOf(ctx).now().getTime() + offsetMs), offsetMs };
}

export interface AdvancedTestClock extends TestClock {
  /** Work that became due and ran before the answer, by kind (`subscription.renew`: 3). */
  ran: Record<string, number>;
}

/**
 * Moves the store's test clock forward, then runs every piece of the store's work that became
 * due (renewals, retries, scheduled changes) before answering; webhook deliveries follow on
 * their own schedule. Moving backwards is refused: what ran cannot be undone. Each step is one
 * conditional UPDATE, so two advances at once both count and neither moves the clock back.
 */
export async function advanceTestClock(ctx: RequestContext, input: AdvanceTestClockInput): Promise<AdvancedTestClock> {
  requireTestEnvironment(ctx);
  const base = baseClockOf(ctx);
  const offsetMs = await inTransaction(ctx, async (tx) => {
    const clocks = db(tx).storeClock;
    await clocks.createMany({ data: [{ offsetMs: 0n }], skipDuplicates: true });
    if (input.seconds !== undefined) {
      await clocks.updateMany({ data: { offsetMs: { increment: BigInt(input.seconds) * 1000n } } });
    } else {
      const target = BigInt(input.to!.getTime() - base.now().getTime());
      const moved = await clocks.updateMany({ where: { offsetMs: { lt: target } }, data: { offsetMs: target } });
      if (moved.count === 0) {
        const now = await getTestClock(tx);
        throw invalidField(['to'], `must be later than the test clock's now (${now.now.toISOString()}); the clock only moves forward`);
      }
    }
    await notifyOnCommit(tx, CLOCK_CHANGES, ctx.storeId);
    afterCommit(tx, () => ctx.caches?.clocks.invalidate(ctx.storeId));
    return Number((await clocks.findFirstOrThrow({ select: { offsetMs: true } })).offsetMs);
  });
  const ran = ctx.runDueWork ? await ctx.runDueWork(ctx) : {};
  return { now: new Date(base.now().getTime() + offsetMs), offsetMs, ran };
}
