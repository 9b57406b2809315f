/**
 * Renewals per second: one `npm run worker` process renewing RENEWALS due subscriptions on
 * PostgreSQL (claim the job, record the try, charge the simulated processor, record the paid
 * invoice, move the period, schedule the next renewal, record `subscription.paid`), against a
 * hand-written `pg` baseline doing the same writes in the same two transactions per renewal,
 * with as many connections as the worker runs renewals at once, in the same run.
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
/** Renewals the worker runs at once (scheduledJobs' default concurrency); the baseline gets as many connections. */
const CONCURRENCY = 8;

export interface RenewalBench {
  renewals: number;
  workerPerSec: number;
  baselinePerSec: number;
  problems: string[];
}

async function renewedCount(db: Database, storeId: string, periodEnd: Date): Promise<number> {
  return db.prisma.transaction.count({ where: { storeId, periodStart: periodEnd, status: 'paid' } });
}

async function waitUntil(what: () => Promise<number>, target: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await what()) < target) {
    if (Date.now() > deadline) throw new Error(`renewals: ${await what()} of ${target} after ${timeoutMs / 1000} s`);
    await sleep(50);
  }
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

/** Claims due jobs as the runner does (SKIP LOCKED, a lease) and renews them on CONCURRENCY connections. */
async function runBaseline(url: string, storeId: string): Promise<number> {
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
                      ORDER BY "id" LIMIT 25 FOR UPDATE SKIP LOCKED) due
              WHERE j."id" = due."id" RETURNING j."id", j."subjectId", j."attemptCount"`,
            [storeId, RENEW_JOB],
          );
          if (!rows.length) return;
          for (const job of rows as { id: string; subjectId: string; attemptCount: number }[]) {
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
    console.log(`renewals: seeding ${RENEWALS} due subscriptions for the worker and ${RENEWALS} for the baseline`);
    const ours = await seedDueSubscriptions(db, RENEWALS, { jobsDueAt: later });
    const theirs = await seedDueSubscriptions(db, RENEWALS, { jobsDueAt: later });

    const worker = startTs('renewal worker', 'src/worker.ts', [], childEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' }));
    defer('stop renewal worker', () => stopChild(worker));
    const ready = Date.now() + 60_000;
    while (!worker.output().includes('job worker running')) {
      if (Date.now() > ready || worker.proc.exitCode !== null) throw new Error(`the renewal worker did not start:\n${worker.output()}`);
      await sleep(50);
    }
    await sleep(500);
    const started = performance.now();
    await db.prisma.job.updateMany({ where: { storeId: ours.storeId, kind: RENEW_JOB }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
    await waitUntil(() => renewedCount(db, ours.storeId, ours.periodEnd), RENEWALS, 600_000);
    const workerPerSec = (RENEWALS * 1000) / (performance.now() - started);
    await stopChild(worker);
    console.log(`  renewals: one worker: ${workerPerSec.toFixed(0)} renewals/s`);
    const invoices = await db.prisma.transaction.groupBy({ by: ['subscriptionId'], where: { storeId: ours.storeId, periodStart: ours.periodEnd }, _count: true, having: { subscriptionId: { _count: { gt: 1 } } } });
    if (invoices.length) problems.push(`renewals: ${invoices.length} subscriptions have more than one invoice for one period`);

    await db.prisma.job.updateMany({ where: { storeId: theirs.storeId, kind: RENEW_JOB }, data: { nextAttemptAt: new Date(Date.now() - 1_000) } });
    const baselinePerSec = await runBaseline(databaseUrl, theirs.storeId);
    const baselineDone = await renewedCount(db, theirs.storeId, theirs.periodEnd);
    if (baselineDone !== RENEWALS) problems.push(`renewals baseline: ${baselineDone} of ${RENEWALS} renewed`);
    console.log(`  renewals: baseline: ${baselinePerSec.toFixed(0)} renewals/s`);
    return { renewals: RENEWALS, workerPerSec, baselinePerSec, problems };
  } finally {
    await db.close();
  }
}

export function formatRenewalBench(r: RenewalBench): string {
  const rows = [
    ['target', 'renewals', 'renewals/s', 'ours/baseline'],
    ['renewals: one worker (postgres)', String(r.renewals), r.workerPerSec.toFixed(0), (r.workerPerSec / r.baselinePerSec).toFixed(2)],
    [`renewals: hand-written pg (${CONCURRENCY} connections)`, String(r.renewals), r.baselinePerSec.toFixed(0), '—'],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(rows[0]!), `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.slice(1).map(line)].join('\n');
}
