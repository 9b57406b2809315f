import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { inTransaction } from '../../src/db/tenant.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { ManualClock, systemClock } from '../../src/lib/clock.js';
import { createLogger } from '../../src/logger.js';
import { recordEvent } from '../../src/modules/events/events.service.js';
import { webhookDeliveries } from '../../src/modules/webhooks/delivery-worker.js';
import { storeContext } from '../support/context.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { insertEndpoint, Receiver } from './delivery-support.js';

const EVENTS = 1_000;
const onPostgres = Boolean(process.env.DATABASE_URL);

let db: TestDatabase;
let second: Database;
let receiver: Receiver;

// The embedded database is one process with one connection: there is no second worker to race.
describe.skipIf(!onPostgres)('two workers on PostgreSQL (skipped on the embedded database: it has one connection)', () => {
  beforeAll(async () => {
    db = await openTestDatabase();
    second = await openDatabase({ databaseUrl: db.url!, poolSize: 10 });
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await second?.close();
    await db?.close();
    await receiver?.close();
  });

  it(`deliver ${EVENTS} events concurrently: each received once, no attempt sent twice`, async () => {
    // Events recorded at the real time, so the workers (on the system clock) find them due at once.
    const ctx = await storeContext(db, 'test', new ManualClock(Date.now()));
    await insertEndpoint(db.prisma, { storeId: ctx.storeId, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    for (let i = 0; i < EVENTS; i += 100) {
      await inTransaction(
        ctx,
        async (tx) => {
          for (let j = i; j < i + 100; j++) await recordEvent(tx, 'checkout.completed', { id: `ch_${j}`, object: 'checkout' });
        },
        { timeout: 60_000 },
      );
    }
    const logger = createLogger('silent');
    // Two job runners, each on its own connection pool, as two worker processes would be.
    const workers = [db.prisma, second.prisma].map(
      (prisma) => new JobRunner({ db: prisma, clock: systemClock, logger, kinds: [webhookDeliveries({ clock: systemClock, logger, allowPrivateUrls: false, batchSize: 25 })] }),
    );
    const drain = async (w: JobRunner) => {
      let sent = 0;
      for (;;) {
        const n = (await w.runOnce()).webhooks!;
        sent += n;
        if (n === 0 && (await db.prisma.webhookDelivery.count({ where: { status: 'pending' } })) === 0) return sent;
      }
    };
    const sent = await Promise.all(workers.map(drain));

    expect(sent[0]! + sent[1]!).toBe(EVENTS);
    // Both took part: otherwise this would prove nothing about their racing.
    expect(sent[0]).toBeGreaterThan(0);
    expect(sent[1]).toBeGreaterThan(0);
    expect(receiver.received).toHaveLength(EVENTS);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(EVENTS);
    const deliveries = await db.prisma.webhookDelivery.groupBy({ by: ['status', 'attemptCount'], _count: true });
    expect(deliveries).toEqual([{ status: 'succeeded', attemptCount: 1, _count: EVENTS }]);
    const attempts = await db.prisma.deliveryAttempt.groupBy({ by: ['deliveryId'], _count: true, having: { deliveryId: { _count: { gt: 1 } } } });
    expect(attempts).toEqual([]);
    expect(await db.prisma.deliveryAttempt.count()).toBe(EVENTS);
  }, 120_000);
});
