/**
 * Renewals per second: one `npm run worker` process renewing RENEWALS due subscriptions on
 * PostgreSQL (claim the job, record the try, charge the simulated processor, record the paid
 * invoice, move the period, schedule the next renewal, record `subscription.paid`), against
 * two hand-written `pg` baselines writing the same rows in the same run: one renewal per two
 * transactions, and a claimed group of GROUP per two transactions (what our worker does).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { newId } from '../src/lib/ids.js';
import { seedDueSubscriptions } from '../test/support/due-subscriptions.js';
import { RENEW_JOB } from '../src/modules/subscriptions/renewals.js';
import { childEnv, startTs, stopChild } from './children.js';

export const RENEWALS = 10_000;
/** Groups the worker runs at once (scheduledJobs' default concurrency); the baselines get as many connections. */
const CONCURRENCY = 8;
/** Subscriptions the worker renews together (scheduledJobs' default groupSize); the batched baseline's group. */
const GROUP = 50;

export interface RenewalBench {
  renewals: number;
  workerPerSec: number;
  /** Hand-written, one renewal at a time (two transactions each). */
  baselinePerSec: number;
  /** Hand-written, a claimed group of GROUP at a time (two transactions per group), as our worker does. */
  batchedBaselinePerSec: number;
  problems: string[];
}

async function renewedCount(db: Database, storeId: string, periodEnd: Date): Promise<number> {
  return db.prisma.transaction.count({ where: { storeId, periodStart: periodEnd, status: 'paid' } });
}

async function waitUntil(what: () => Promise<number>, target: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await what()) < target) {
    if (Date.now() > deadline) throw new Error(`renewals: ${await what()} of ${target} after ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

/**
 * When the last of the store's renewals was written (its subscription row's updatedAt): the
 * end of the run, exact whatever the polling interval, and polling seldom keeps the counting
 * query from taking CPU from the worker it measures.
 */
async function lastRenewalAt(db: Database, storeId: string): Promise<number> {
  const last = await db.prisma.subscription.aggregate({ where: { storeId }, _max: { updatedAt: true } });
  return last._max.updatedAt!.getTime();
}

/**
 * The baseline's renewal of one claimed subscription: the same rows as ours, in the same two
 * transactions around a (here instant) charge, with nothing but SQL.
 */
async function baselineRenewal(client: pg.PoolClient, storeId: string, subscriptionId: string): Promise<void> {
  const txn = newId('transaction');
  await client.query('BEGIN');
  const { rows } = await client.query(
    `SELECT s."customerId", s."currentPeriodEndDate", s."billingAnchor", s."billingPeriods", i."unitPrice", i."units"
       FROM "Subscription" s JOIN "SubscriptionItem" i ON i."subscriptionId" = s."id"
      WHERE s."id" = $1 AND s."storeId" = $2 FOR UPDATE OF s`,
    [subscriptionId, storeId],
  );
  const s = rows[0] as { customerId: string; currentPeriodEndDate: Date; billingAnchor: Date; billingPeriods: number; unitPrice: string; units: number };
  const start = s.currentPeriodEndDate;
  const end = new Date(s.billingAnchor);
  end.setUTCMonth(end.getUTCMonth() + s.billingPeriods + 1);
  const amount = BigInt(s.unitPrice) * BigInt(s.units);
  await client.query(
    `INSERT INTO "Transaction" ("id","storeId","mode","customerId","subscriptionId","amount","currency","type","status","periodStart","periodEnd","attempt","createdAt")
     VALUES ($1,$2,'test',$3,$4,$5,'EUR','invoice','pending',$6,$7,1,now())`,
    [txn, storeId, s.customerId, subscriptionId, amount.toString(), start, end],
  );
  await client.query('COMMIT');
  await client.query('BEGIN');
  await client.query(`SELECT 1 FROM "Subscription" WHERE "id" = $1 FOR UPDATE`, [subscriptionId]);
  await client.query(`UPDATE "Transaction" SET "status" = 'paid', "amountPaid" = "amount", "processorReference" = $2 WHERE "id" = $1 AND "status" = 'pending'`, [txn, `ref_${txn}`]);
  await client.query(
    `UPDATE "Subscription" SET "status" = 'active', "currentPeriodStartDate" = $2, "currentPeriodEndDate" = $3, "nextTransactionDate" = $3,
            "billingPeriods" = "billingPeriods" + 1, "lastTransactionId" = $4, "lastTransactionDate" = now(), "updatedAt" = now() WHERE "id" = $1`,
    [subscriptionId, start, end, txn],
  );
  await client.query(
    `INSERT INTO "Job" ("id","storeId","mode","kind","subjectId","status","attemptCount","nextAttemptAt","createdAt") VALUES ($1,$2,'test',$3,$4,'pending',0,$5,now())
     ON CONFLICT ("kind","subjectId") DO UPDATE SET "status" = 'pending', "attemptCount" = 0, "nextAttemptAt" = $5`,
    [newId('job'), storeId, RENEW_JOB, subscriptionId, end],
  );
  await client.query(`INSERT INTO "Event" ("id","storeId","mode","type","payload","createdAt") VALUES ($1,$2,'test','subscription.paid',$3,now())`, [
    newId('event'),
    storeId,
    JSON.stringify({ id: subscriptionId, object: 'subscription', status: 'active', current_period_end_date: end.toISOString() }),
  ]);
  await client.query('COMMIT');
}

/**
 * The batched baseline: what our worker does, written by hand. A group of claimed
 * subscriptions is renewed in the same two transactions: lock and read them, insert their
 * tries in one statement; then settle the tries, move the periods, reschedule the jobs and
 * insert the events, one statement each, with the values of every row of the group.
 */
async function baselineGroup(client: pg.PoolClient, storeId: string, subscriptionIds: string[]): Promise<void> {
  await client.query('BEGIN');
  const { rows } = await client.query(
    `SELECT s."id", s."customerId", s."currentPeriodEndDate", s."billingAnchor", s."billingPeriods", i."unitPrice", i."units"
       FROM "Subscription" s JOIN "SubscriptionItem" i ON i."subscriptionId" = s."id"
      WHERE s."id" = ANY($1) AND s."storeId" = $2 ORDER BY s."id" FOR UPDATE OF s`,
    [subscriptionIds, storeId],
  );
  const tries = (rows as { id: string; customerId: string; currentPeriodEndDate: Date; billingAnchor: Date; billingPeriods: number; unitPrice: string; units: number }[]).map((s) => {
    const end = new Date(s.billingAnchor);
    end.setUTCMonth(end.getUTCMonth() + s.billingPeriods + 1);
    return { txn: newId('transaction'), sub: s.id, customer: s.customerId, start: s.currentPeriodEndDate, end, amount: (BigInt(s.unitPrice) * BigInt(s.units)).toString(), periods: s.billingPeriods + 1 };
  });
  const column = <K extends keyof (typeof tries)[number]>(k: K) => tries.map((t) => t[k]);
  await client.query(
    `INSERT INTO "Transaction" ("id","storeId","mode","customerId","subscriptionId","amount","currency","type","status","periodStart","periodEnd","attempt","createdAt")
     SELECT u.id, $1, 'test', u.customer, u.sub, u.amount, 'EUR', 'invoice', 'pending', u.start, u."end", 1, now()
       FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::timestamptz[], $7::timestamptz[]) AS u(id, customer, sub, amount, start, "end")`,
    [storeId, column('txn'), column('customer'), column('sub'), column('amount'), column('start'), column('end')],
  );
  await client.query('COMMIT');
  await client.query('BEGIN');
  await client.query(`SELECT 1 FROM "Subscription" WHERE "id" = ANY($1) ORDER BY "id" FOR UPDATE`, [subscriptionIds]);
  await client.query(
    `UPDATE "Transaction" t SET "status" = 'paid', "amountPaid" = t."amount", "processorReference" = 'ref_' || t."id" WHERE t."id" = ANY($1) AND t."status" = 'pending'`,
    [column('txn')],
  );
  await client.query(
    `UPDATE "Subscription" s SET "status" = 'active', "currentPeriodStartDate" = u.start, "currentPeriodEndDate" = u."end", "nextTransactionDate" = u."end",
            "billingPeriods" = u.periods, "lastTransactionId" = u.txn, "lastTransactionDate" = now(), "updatedAt" = now()
       FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[], $4::int[], $5::text[]) AS u(id, start, "end", periods, txn) WHERE s."id" = u.id`,
    [column('sub'), column('start'), column('end'), column('periods'), column('txn')],
  );
  await client.query(
    `INSERT INTO "Job" ("id","storeId","mode","kind","subjectId","status","attemptCount","nextAttemptAt","createdAt")
     SELECT u.id, $1, 'test', $2, u.sub, 'pending', 0, u."end", now() FROM unnest($3::text[], $4::text[], $5::timestamptz[]) AS u(id, sub, "end")
     ON CONFLICT ("kind","subjectId") DO UPDATE SET "status" = 'pending', "attemptCount" = 0, "nextAttemptAt" = EXCLUDED."nextAttemptAt"`,
    [storeId, RENEW_JOB, tries.map(() => newId('job')), column('sub'), column('end')],
  );
  await client.query(
    `INSERT INTO "Event" ("id","storeId","mode","type","payload","createdAt") SELECT u.id, $1, 'test', 'subscription.paid', u.payload::jsonb, now() FROM unnest($2::text[], $3::text[]) AS u(id, payload)`,
    [storeId, tries.map(() => newId('event')), tries.map((t) => JSON.stringify({ id: t.sub, object: 'subscription', status: 'active', current_period_end_date: t.end.toISOString() }))],
  );
  await client.query('COMMIT');
}

/** Claims due jobs as the runner does (SKIP LOCKED, a lease) and renews them on CONCURRENCY connections. */
async function runBaseline(url: string, storeId: string, batched: boolean): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: CONCURRENCY + 1 });
  const started = performance.now();
  let renewed = 0;
  try {
    const lane = async () => {
      const client = await pool.connect();
      try {
        for (;;) {
          const { rows } = await client.query(
            `UPDATE "Job" j SET "attemptCount" = j."attemptCount" + 1, "nextAttemptAt" = now() + interval '5 minutes'
               FROM (SELECT "id" FROM "Job" WHERE "storeId" = $1 AND "status" = 'pending' AND "kind" = $2 AND "nextAttemptAt" <= now()
                      ORDER BY "nextAttemptAt", "id" LIMIT ${GROUP} FOR UPDATE SKIP LOCKED) due
              WHERE j."id" = due."id" RETURNING j."id", j."subjectId", j."attemptCount"`,
            [storeId, RENEW_JOB],
          );
          if (!rows.length) return;
          const jobs = rows as { id: string; subjectId: string; attemptCount: number }[];
          if (batched) {
            await baselineGroup(client, storeId, jobs.map((j) => j.subjectId));
            await client.query(`UPDATE "Job" SET "status" = 'succeeded', "completedAt" = now() WHERE "id" = ANY($1) AND "attemptCount" = 1 AND "status" = 'pending'`, [jobs.map((j) => j.id)]);
            renewed += jobs.length;
            continue;
          }
          for (const job of jobs) {
            await baselineRenewal(client, storeId, job.subjectId);
            await client.query(`UPDATE "Job" SET "status" = 'succeeded', "completedAt" = now() WHERE "id" = $1 AND "attemptCount" = $2 AND "status" = 'pending'`, [job.id, job.attemptCount]);
            renewed++;
          }
        }
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  } finally {
    await pool.end();
  }
  return (renewed * 1000) / (performance.now() - started);
}

export async function benchRenewals(databaseUrl: string, defer: (name: string, run: () => Promise<void>) => void): Promise<RenewalBench> {
  const problems: string[] = [];
  const db = await openDatabase({ databaseUrl, poolSize: 4 });
  try {
    await migrate(db);
    // Due in a day until the clock starts: the worker finds them only when told to.
    const later = new Date(Date.now() + 86_400_000);
    console.log(`renewals: seeding ${RENEWALS} due subscriptions for the worker and ${RENEWALS} for each baseline`);
    const ours = await seedDueSubscriptions(db, RENEWALS, { jobsDueAt: later });
    const theirs = await seedDueSubscriptions(db, RENEWALS, { jobsDueAt: later });
    const theirsBatched = await seedDueSubscriptions(db, RENEWALS, { jobsDueAt: later });

    const worker = startTs('renewal worker', 'src/worker.ts', [], childEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }));
    defer('stop renewal worker', () => stopChild(worker));
    const ready = Date.now() + 60_000;
    while (!worker.output().includes('job worker running')) {
      if (Date.now() > ready || worker.proc.exitCode !== null) throw new Error(`the renewal worker did not start:\n${worker.output()}`);
      await sleep(50);
    }
    await sleep(500);
    const started = Date.now();
    await db.prisma.job.updateMany({ where: { storeId: ours.storeId, kind: RENEW_JOB }, data: { nextAttemptAt: new Date(started - 1_000) } });
    await waitUntil(() => renewedCount(db, ours.storeId, ours.periodEnd), RENEWALS, 600_000);
    const workerPerSec = (RENEWALS * 1000) / ((await lastRenewalAt(db, ours.storeId)) - started);
    await stopChild(worker);
    console.log(`  renewals: one worker: ${workerPerSec.toFixed(0)} renewals/s`);
    const invoices = await db.prisma.transaction.groupBy({ by: ['subscriptionId'], where: { storeId: ours.storeId, periodStart: ours.periodEnd }, _count: true, having: { subscriptionId: { _count: { gt: 1 } } } });
    if (invoices.length) problems.push(`renewals: ${invoices.length} subscriptions have more than one invoice for one period`);

    const baseline = async (seeded: typeof theirs, batched: boolean) => {
      await db.prisma.job.updateMany({ where: { storeId: seeded.storeId, kind: RENEW_JOB }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
      const perSec = await runBaseline(databaseUrl, seeded.storeId, batched);
      const done = await renewedCount(db, seeded.storeId, seeded.periodEnd);
      if (done !== RENEWALS) problems.push(`renewals baseline${batched ? ' (batched)' : ''}: ${done} of ${RENEWALS} renewed`);
      console.log(`  renewals: baseline${batched ? ' (batched)' : ''}: ${perSec.toFixed(0)} renewals/s`);
      return perSec;
    };
    const baselinePerSec = await baseline(theirs, false);
    const batchedBaselinePerSec = await baseline(theirsBatched, true);
    return { renewals: RENEWALS, workerPerSec, baselinePerSec, batchedBaselinePerSec, problems };
  } finally {
    await db.close();
  }
}

export function formatRenewalBench(r: RenewalBench): string {
  const rows = [
    ['target', 'renewals', 'renewals/s', 'ours/baseline'],
    ['renewals: one worker (postgres), vs one-at-a-time', String(r.renewals), r.workerPerSec.toFixed(0), (r.workerPerSec / r.baselinePerSec).toFixed(2)],
    ['renewals: one worker (postgres), vs batched', String(r.renewals), r.workerPerSec.toFixed(0), (r.workerPerSec / r.batchedBaselinePerSec).toFixed(2)],
    [`renewals: hand-written pg, one at a time (${CONCURRENCY} connections)`, String(r.renewals), r.baselinePerSec.toFixed(0), '—'],
    [`renewals: hand-written pg, groups of ${GROUP} (${CONCURRENCY} connections)`, String(r.renewals), r.batchedBaselinePerSec.toFixed(0), '—'],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
