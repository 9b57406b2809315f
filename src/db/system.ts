/**
 * Access that belongs to no single tenant, kept to the few places that need it:
 * - stores and API keys (operator commands; resolving a key to its store; whether the stores a
 *   split names as recipients exist);
 * - split allocations a store receives, which are rows of the stores that pay them;
 * - service-wide settings (keys the service generates for itself);
 * - the job runner, which claims due work of every store and then runs each item in its
 *   store's tenant-bound context;
 * - hosted pages, which learn the store from a capability in the URL (a checkout id, a
 *   product id, a split invitation's recipient, an affiliate invitation, a referral code)
 *   before they can build a tenant context; referral codes are unique across stores;
 * - maintenance across tenants (purging expired idempotency records, health checks);
 * - the metrics' view of the job runner's backlog across stores (`webhookQueueDepth`,
 *   `oldestDueLagSeconds`).
 * Everything else goes through `db(ctx)` (src/db/tenant.ts). test/architecture.test.ts keeps
 * this list honest.
 */
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { prepared } from './rows.js';
import type { Mode } from '../generated/prisma/enums.js';
import { isStorableText } from '../lib/text.js';
import { rawClient, rootOf, sqlClient, type DataScope, type TenantContext } from './tenant.js';

export function systemDb(scope: DataScope): PrismaClient {
  return rootOf(scope);
}

/**
 * The store owning a row a hosted page reached through a capability in its URL (a checkout
 * id, a product's buy link, the customer of a signed portal link), in the page's environment;
 * null when there is none. The page then works in that store's tenant-bound context.
 */
export async function storeOwning(scope: DataScope, model: 'Checkout' | 'Product' | 'Customer' | 'SplitRecipient' | 'AffiliateInvite', id: string, mode: Mode): Promise<string | null> {
  // A URL can carry text no row can hold (%00); it names nothing, like any unknown id.
  if (!isStorableText(id)) return null;
  // Every hosted page request starts here: a named prepared statement, not the client's engine.
  const [row] = await rawClient(scope).$queryRaw<{ storeId: string }[]>`${prepared} SELECT "storeId" FROM ${Prisma.raw(`"${model}"`)} WHERE "id" = ${id} AND "mode" = CAST(${mode} AS "Mode")`;
  return row?.storeId ?? null;
}

/**
 * The affiliate holding a referral code, of whichever store and environment (codes are unique
 * across the service, so a referral link names only the code); null when none does. Read
 * through the caller's transaction when it has one.
 */
export async function affiliateByCode(scope: DataScope, code: string): Promise<{ id: string; storeId: string; mode: Mode; status: string } | null> {
  if (!isStorableText(code)) return null;
  const [row] = await rawClient(scope).$queryRaw<{ id: string; storeId: string; mode: Mode; status: string }[]>`
    SELECT "id", "storeId", "mode", "status" FROM "Affiliate" WHERE "referralCode" = ${code}`;
  return row ?? null;
}

/**
 * Which of the given store ids exist (split recipients are other stores). Read through the
 * caller's transaction when it has one: on the embedded database that holds the only connection.
 */
export async function existingStores(ctx: TenantContext, ids: readonly string[]): Promise<Set<string>> {
  const storable = ids.filter(isStorableText);
  if (!storable.length) return new Set();
  const rows = await sqlClient(ctx).$queryRaw<{ id: string }[]>`SELECT "id" FROM "Store" WHERE "id" = ANY(${storable})`;
  return new Set(rows.map((r) => r.id));
}

/**
 * The allocations a store receives from other stores' splits, in one environment, newest
 * first: rows of the paying stores, so read outside any tenant, by the recipient's own id.
 */
export function incomingAllocations(scope: DataScope, recipientStoreId: string, mode: Mode) {
  const where = { recipientStoreId, mode };
  return {
    rows: (args: { skip?: number; take?: number; cursor?: { id: string } }) => rootOf(scope).splitAllocation.findMany({ where, orderBy: { id: 'desc' }, ...args }),
    count: () => rootOf(scope).splitAllocation.count({ where }),
  };
}


/**
 * Rows of a job table (alias `j`, its store clock `c`) that are due now by their store's clock,
 * as `claimDue` (src/jobs/claim.ts) judges them: pending, and not leased (`leaseUntil`). The bound by the furthest-ahead clock lets the
 * (status, nextAttemptAt) index find them.
 */
const dueRows = (now: Date) => Prisma.sql`
  j."status" = 'pending'
  AND j."nextAttemptAt" <= ${now}::timestamptz + (SELECT COALESCE(max("offsetMs"), 0) FROM "StoreClock") * interval '1 millisecond'
  AND j."nextAttemptAt" <= ${now}::timestamptz + COALESCE(c."offsetMs", 0) * interval '1 millisecond'
  AND (j."leaseUntil" IS NULL OR j."leaseUntil" <= ${now}::timestamptz)`;

/** Deliveries to an endpoint the runner sends to (enabled, over HTTP) that it would claim now. */
const deliverable = Prisma.sql`
  JOIN "WebhookEndpoint" ep ON ep."id" = j."endpointId" AND ep."deliveryMode" = 'http' AND ep."enabled" AND ep."deletedAt" IS NULL`;

/**
 * Webhook deliveries due and not yet sent, across stores (metrics, at each scrape): those
 * waiting for a worker, not the ones in flight or waiting for a retry's time.
 */
export async function webhookQueueDepth(scope: DataScope, now: Date): Promise<number> {
  const [row] = await rawClient(scope).$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n
    FROM "WebhookDelivery" j ${deliverable}
    LEFT JOIN "StoreClock" c ON c."storeId" = j."storeId" AND c."mode" = j."mode"
    WHERE ${dueRows(now)}`;
  return row?.n ?? 0;
}

/**
 * How long the oldest due item of the job runner has been waiting, in seconds by its store's
 * clock, across the Job table (renewals, reconciliations, refunds, disputes, auto-recharges)
 * and webhook deliveries; 0 when nothing is due. One statement (metrics, at each scrape).
 */
export async function oldestDueLagSeconds(scope: DataScope, now: Date): Promise<number> {
  const lag = (table: Prisma.Sql, joins: Prisma.Sql) => Prisma.sql`
    SELECT max(${now}::timestamptz + COALESCE(c."offsetMs", 0) * interval '1 millisecond' - j."nextAttemptAt") AS lag
    FROM ${table} j ${joins}
    LEFT JOIN "StoreClock" c ON c."storeId" = j."storeId" AND c."mode" = j."mode"
    WHERE ${dueRows(now)}`;
  const [row] = await rawClient(scope).$queryRaw<{ seconds: number }[]>`
    SELECT COALESCE(EXTRACT(EPOCH FROM GREATEST((${lag(Prisma.raw('"Job"'), Prisma.empty)}), (${lag(Prisma.raw('"WebhookDelivery"'), deliverable)}))), 0)::float8 AS seconds`;
  return row?.seconds ?? 0;
}

/**
 * Serializes "create a store if there is none" across processes for the rest of the caller's
 * transaction (a transaction-scoped advisory lock: released at commit or rollback).
 */
export async function lockStoreCreation(tx: Prisma.TransactionClient): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('billing.default_store'))`;
}
