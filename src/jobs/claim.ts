import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import type { Tenant } from '../db/tenant.js';

/**
 * The job columns: every table the runner claims from has them (Job, WebhookDelivery).
 * - status: pending | succeeded | failed
 * - attemptCount: attempts under the current schedule, raised by each claim
 * - nextAttemptAt: when the row is due, by its store's clock; while claimed, the lease end
 * - leaseUntil: while claimed, the lease end in real time (a test clock moved forward must not
 *   end a lease: the row would be claimed and sent again while its first attempt runs);
 *   cleared with the outcome
 * - storeId, mode: whose clock decides
 */
export type JobTable = 'Job' | 'WebhookDelivery';

export interface Claimed {
  id: string;
  storeId: string;
  mode: Mode;
  /** This attempt's number: the claim raised it. Recording an outcome checks it still holds. */
  attemptCount: number;
  /** How far the store's clock is ahead of real time (test clocks), milliseconds. */
  offsetMs: number;
}

export interface ClaimOptions {
  table: JobTable;
  /** Real time now; each row is compared with its own store's time. */
  now: Date;
  limit: number;
  /**
   * How long the claim is ours: what an attempt may take (`perRowMs`, times the most rows of
   * one `group` claimed when the kind works a group's rows one after another) plus `marginMs`
   * to record the outcomes.
   */
  lease: { perRowMs: number; marginMs: number; group?: string };
  /** Extra joins (alias the claimed table `j`). */
  joins?: Prisma.Sql;
  /** Extra conditions. */
  where?: Prisma.Sql;
  /** Only this store environment's rows (running a store's due jobs when its clock moves). */
  only?: Tenant;
}

/**
 * One statement: lock up to `limit` due rows no other worker holds (FOR UPDATE SKIP LOCKED),
 * count the attempt and lease them by pushing their due time past what the attempt can take.
 * No transaction stays open while the work runs; a worker that dies leaves rows whose lease
 * runs out, and they are claimed again. Due-ness is judged by each row's store clock
 * (StoreClock.offsetMs ahead of real time), so a test clock moves only its store's jobs.
 */
export async function claimDue(db: PrismaClient, o: ClaimOptions): Promise<Claimed[]> {
  const table = Prisma.raw(`"${o.table}"`);
  if (o.lease.group !== undefined && !/^[a-zA-Z]+$/.test(o.lease.group)) throw new Error(`bad group column ${o.lease.group}`);
  const group = o.lease.group ? Prisma.raw(`j."${o.lease.group}"`) : Prisma.sql`1`;
  const only = o.only ? Prisma.sql`AND j."storeId" = ${o.only.storeId} AND j."mode"::text = ${o.only.mode}` : Prisma.empty;
  const maxOffset = o.only
    ? Prisma.sql`COALESCE((SELECT "offsetMs" FROM "StoreClock" WHERE "storeId" = ${o.only.storeId} AND "mode"::text = ${o.only.mode}), 0)`
    : Prisma.sql`(SELECT COALESCE(max("offsetMs"), 0) FROM "StoreClock")`;
  const rows = await db.$queryRaw<(Omit<Claimed, 'offsetMs'> & { offsetMs: bigint; leaseUntil: Date })[]>`
    WITH due AS (
      SELECT j."id", COALESCE(c."offsetMs", 0) AS "offsetMs", ${group} AS "group"
      FROM ${table} j
      LEFT JOIN "StoreClock" c ON c."storeId" = j."storeId" AND c."mode" = j."mode"
      ${o.joins ?? Prisma.empty}
      WHERE j."status" = 'pending'
        -- Every pending row, due or not, is in the table (a subscription's next renewal waits
        -- there for a month): the bound by the furthest-ahead clock lets the (status,
        -- nextAttemptAt) index find the due rows instead of reading all of them.
        AND j."nextAttemptAt" <= ${o.now}::timestamptz + ${maxOffset} * interval '1 millisecond'
        AND j."nextAttemptAt" <= ${o.now}::timestamptz + COALESCE(c."offsetMs", 0) * interval '1 millisecond'
        -- A lease runs in real time: moving the store's clock forward does not end it.
        AND (j."leaseUntil" IS NULL OR j."leaseUntil" <= ${o.now}::timestamptz)
        ${o.where ? Prisma.sql`AND ${o.where}` : Prisma.empty}
        ${only}
      ORDER BY j."nextAttemptAt", j."id"
      LIMIT ${o.limit}
      FOR UPDATE OF j SKIP LOCKED
    ), lease AS (
      SELECT max(n) * ${o.lease.perRowMs}::bigint + ${o.lease.marginMs}::bigint AS ms FROM (SELECT count(*) AS n FROM due GROUP BY "group") g
    )
    UPDATE ${table} j
       SET "attemptCount" = j."attemptCount" + 1,
           "nextAttemptAt" = ${o.now}::timestamptz + (due."offsetMs" + (SELECT ms FROM lease)) * interval '1 millisecond',
           "leaseUntil" = ${o.now}::timestamptz + (SELECT ms FROM lease) * interval '1 millisecond'
      FROM due
     WHERE j."id" = due."id"
    RETURNING j."id", j."storeId", j."mode"::text AS "mode", j."attemptCount", due."offsetMs", j."leaseUntil"`;
  heldBy(db).note(o.table, rows, o.now);
  return rows.map(({ leaseUntil: _l, ...r }) => ({ ...r, offsetMs: Number(r.offsetMs) })).sort((a, b) => (a.id < b.id ? -1 : 1));
}

interface Held {
  attemptCount: number;
  /** The claim's lease end (real time): after it the lease has run out by itself. */
  leaseUntil: Date;
}

/**
 * The claims one database client (one process's runner) made and may still hold: on shutdown
 * the runner hands back those whose work it could not finish, so they are due again at once
 * instead of after their lease (minutes for a webhook round).
 */
class HeldLeases {
  private readonly held: Record<JobTable, Map<string, Held>> = { Job: new Map(), WebhookDelivery: new Map() };

  note(table: JobTable, rows: { id: string; attemptCount: number; leaseUntil: Date }[], now: Date): void {
    const book = this.held[table];
    for (const [id, h] of book) if (h.leaseUntil <= now) book.delete(id);
    for (const r of rows) book.set(r.id, { attemptCount: r.attemptCount, leaseUntil: r.leaseUntil });
  }

  /**
   * Makes every claim still exactly as this client left it (pending, same attempt, its lease
   * still set: no outcome was recorded, which clears it) due now by its store's clock, its attempt not counted. An
   * attempt that did reach the outside world before the process stopped is made again, as
   * after a crash: deliveries and jobs are at-least-once.
   */
  async release(db: PrismaClient): Promise<number> {
    let released = 0;
    for (const table of ['Job', 'WebhookDelivery'] as const) {
      const book = this.held[table];
      if (!book.size) continue;
      const entries = [...book];
      book.clear();
      released += await db.$executeRaw`
        UPDATE ${Prisma.raw(`"${table}"`)} j
           SET "attemptCount" = j."attemptCount" - 1,
               "leaseUntil" = NULL,
               "nextAttemptAt" = now() + COALESCE((SELECT c."offsetMs" FROM "StoreClock" c WHERE c."storeId" = j."storeId" AND c."mode" = j."mode"), 0) * interval '1 millisecond'
          FROM unnest(${entries.map(([id]) => id)}::text[], ${entries.map(([, h]) => h.attemptCount)}::int[], ${entries.map(([, h]) => h.leaseUntil)}::timestamptz[]) AS h(id, attempt, lease_until)
         WHERE j."id" = h.id AND j."status" = 'pending' AND j."attemptCount" = h.attempt AND j."leaseUntil" = h.lease_until`;
    }
    return released;
  }
}

const HELD = new WeakMap<PrismaClient, HeldLeases>();

function heldBy(db: PrismaClient): HeldLeases {
  let held = HELD.get(db);
  if (!held) HELD.set(db, (held = new HeldLeases()));
  return held;
}

/** Hands back the claims this client holds whose outcome was never recorded (see HeldLeases.release); returns how many. */
export function releaseHeldLeases(db: PrismaClient): Promise<number> {
  return heldBy(db).release(db);
}

/**
 * When the next attempt is due after attempt `attemptCount` (1-based) failed at `at`, by the
 * kind's schedule; null when the schedule is exhausted and the job has failed for good.
 */
export function nextAttemptAfter(delaysMs: readonly number[], attemptCount: number, at: Date): Date | null {
  const delay = delaysMs[attemptCount - 1];
  return delay === undefined ? null : new Date(at.getTime() + delay);
}
