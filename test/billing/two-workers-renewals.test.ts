import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceEnv } from '../../src/context.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { dataScope } from '../../src/db/tenant.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { scheduledJobs } from '../../src/jobs/scheduled-jobs.js';
import { systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/logger.js';
import { setPaymentProcessor, type ChargeRequest, type ChargeResult, type PaymentProcessor } from '../../src/modules/payments/processor.js';
import { simulatedProcessor } from '../../src/modules/payments/simulated-processor.js';
import { renewalJob } from '../../src/modules/subscriptions/renewals.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { seedDueSubscriptions } from '../support/due-subscriptions.js';

const SUBSCRIPTIONS = 1_000;
const onPostgres = Boolean(process.env.DATABASE_URL);
const logger = createLogger('silent');

/** Records every charge by idempotency key; answers a key it has seen with its first outcome, as a processor must. */
class RecordingProcessor implements PaymentProcessor {
  readonly name = 'recording';
  readonly charges = new Map<string, number>();
  readonly outcomes = new Map<string, ChargeResult>();
  /** When set, the first charge of this key is recorded and then never answers: its worker is as good as dead. */
  hangOn: string | null = null;
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    this.charges.set(request.idempotencyKey, (this.charges.get(request.idempotencyKey) ?? 0) + 1);
    const known = this.outcomes.get(request.idempotencyKey);
    if (known) return known;
    const result: ChargeResult = { status: 'succeeded', reference: `rec_${request.idempotencyKey}` };
    this.outcomes.set(request.idempotencyKey, result);
    if (request.idempotencyKey === this.hangOn) return new Promise<ChargeResult>(() => {});
    return result;
  }
  async lookup(key: string) {
    return this.outcomes.get(key) ?? null;
  }
  refund = simulatedProcessor.refund.bind(simulatedProcessor);
  lookupRefund = simulatedProcessor.lookupRefund.bind(simulatedProcessor);
}

function runnerOn(prisma: Database['prisma'], leaseMs?: number): JobRunner {
  const env = (mode: 'test' | 'prod'): ServiceEnv => ({ data: dataScope(prisma), mode, clock: systemClock, baseUrl: 'http://billing.test' });
  return new JobRunner({ db: prisma, clock: systemClock, logger, kinds: [scheduledJobs({ handlers: [renewalJob()], envFor: env, logger, batchSize: 25, leaseMs })] });
}

// The embedded database is one process with one connection: there is no second worker to race.
describe.skipIf(!onPostgres)('renewals by two workers on PostgreSQL (skipped on the embedded database: it has one connection)', () => {
  let db: TestDatabase;
  let second: Database;
  let processor: RecordingProcessor;

  beforeAll(async () => {
    db = await openTestDatabase();
    second = await openDatabase({ databaseUrl: db.url!, poolSize: 10 });
  });
  afterEach(() => setPaymentProcessor('test', simulatedProcessor));
  afterAll(async () => {
    setPaymentProcessor('test', simulatedProcessor);
    await second?.close();
    await db?.close();
  });

  it(`renew ${SUBSCRIPTIONS} due subscriptions at once: exactly one invoice and one charge each`, async () => {
    processor = new RecordingProcessor();
    setPaymentProcessor('test', processor);
    const { ids } = await seedDueSubscriptions(db, SUBSCRIPTIONS, { paymentMethodToken: 'pm_test' });
    const workers = [runnerOn(db.prisma), runnerOn(second.prisma)];
    const drain = async (w: JobRunner) => {
      let ran = 0;
      for (;;) {
        const n = (await w.runOnce()).jobs!;
        ran += n;
        if (n === 0) return ran;
      }
    };
    const ran = await Promise.all(workers.map(drain));
    expect(ran[0]! + ran[1]!).toBe(SUBSCRIPTIONS);
    expect(ran[0]).toBeGreaterThan(0);
    expect(ran[1]).toBeGreaterThan(0);

    const invoices = await db.prisma.transaction.groupBy({ by: ['subscriptionId', 'status'], where: { subscriptionId: { in: ids } }, _count: true });
    expect(invoices).toHaveLength(SUBSCRIPTIONS);
    expect(invoices.every((g) => g.status === 'paid' && g._count === 1)).toBe(true);
    expect(processor.charges.size).toBe(SUBSCRIPTIONS);
    expect([...processor.charges.values()].every((n) => n === 1)).toBe(true);
    const moved = await db.prisma.subscription.count({ where: { id: { in: ids }, billingPeriods: 2, status: 'active' } });
    expect(moved).toBe(SUBSCRIPTIONS);
  }, 120_000);

  it('a worker that dies during a charge leaves the period to another after its lease, charged once', async () => {
    processor = new RecordingProcessor();
    setPaymentProcessor('test', processor);
    const { ids } = await seedDueSubscriptions(db, 1, { paymentMethodToken: 'pm_test' });
    const id = ids[0]!;
    const sub = await db.prisma.subscription.findUniqueOrThrow({ where: { id } });
    processor.hangOn = `${id}:${sub.currentPeriodEndDate!.toISOString()}:1`;
    // The first worker claims the job with a short lease and never comes back from the charge.
    void runnerOn(db.prisma, 1_000).runOnce();
    await expect.poll(() => processor.charges.size, { timeout: 10_000 }).toBe(1);
    const second = runnerOn(db.prisma, 1_000);
    expect(await second.runOnce()).toEqual({ jobs: 0 }); // still leased
    await expect.poll(async () => (await second.runOnce()).jobs, { timeout: 10_000, interval: 250 }).toBe(1);
    const invoices = await db.prisma.transaction.findMany({ where: { subscriptionId: id } });
    expect(invoices.map((t) => [t.status, t.attempt])).toEqual([['paid', 1]]);
    // The same key went to the processor twice, and it answered the first outcome: one charge.
    expect([...processor.charges.entries()]).toEqual([[processor.hangOn, 2]]);
    expect(processor.outcomes.size).toBe(1);
    expect((await db.prisma.subscription.findUniqueOrThrow({ where: { id } })).billingPeriods).toBe(2);
  }, 60_000);
});
