import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { dataScope, type Tenant } from '../../db/tenant.js';
import { offsetClock, type Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../logger.js';
import { metricsSink } from '../../metrics/sink.js';
import { claimDue, nextAttemptAfter, type Claimed } from '../../jobs/claim.js';
import type { BatchCounts, JobKind } from '../../jobs/job-runner.js';
import { openSigningSecret } from './endpoint-secrets.js';
import { postSigned, type PostOutcome } from './http-post.js';
import { RETRY_DELAYS_MS } from './retry-schedule.js';
import { signDelivery } from './signing.js';
import { assertDeliverableUrl, guardedLookup } from './url-safety.js';

export { RETRY_DELAYS_MS } from './retry-schedule.js';

export interface WebhookDeliveryOptions {
  clock: Clock;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: production endpoints may point at private addresses. */
  allowPrivateUrls: boolean;
  /** Deliveries claimed per round. */
  batchSize?: number;
  /** Real time an attempt may take before it counts as failed. */
  timeoutMs?: number;
}

/** A claimed delivery with what sending it needs. */
interface Delivery extends Claimed {
  eventId: string;
  endpointId: string;
  type: string;
  payload: unknown;
  createdAt: Date;
  url: string;
  secretCiphertext: string;
}

interface Outcome {
  delivery: Delivery;
  attemptedAt: Date;
  succeeded: boolean;
  /** When to try again; null after a success or when the schedule is exhausted. */
  next: Date | null;
  post: PostOutcome;
}

/** Beyond the attempts themselves, how long a claim stays ours: time to record the outcome. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Webhook delivery as a kind of the job runner: due deliveries of `http` endpoints are claimed
 * from WebhookDelivery (its job columns), signed and POSTed with no transaction open, and
 * their outcomes recorded together at the end of the round. Delivery is at least once: a
 * worker that dies mid-round leaves rows whose lease runs out and which are sent again, and
 * receivers drop duplicates by `webhook-id`.
 */
export function webhookDeliveries(opts: WebhookDeliveryOptions): JobKind {
  const batchSize = opts.batchSize ?? 200;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const guarded = guardedLookup(opts.allowPrivateUrls);
  /**
   * The batch whose attempts are under way when batches overlap: the next one is claimed and
   * loaded meanwhile, and sent once this one's attempts are done, so an endpoint still
   * receives its deliveries one at a time and in order.
   */
  let underway: { sent: Promise<void>; recorded: Promise<void> } | undefined;
  return {
    name: 'webhooks',
    batchSize,
    async settle() {
      await underway?.recorded;
    },
    async runBatch(db: PrismaClient, now: Date, only?: Tenant, overlap = false): Promise<BatchCounts> {
      if (!overlap) await underway?.recorded;
      // Attempts of one endpoint run one after another: a round may take a timeout per row of its busiest endpoint.
      const claimed = await claimDue(db, {
        table: 'WebhookDelivery',
        now,
        limit: batchSize,
        lease: { perRowMs: timeoutMs, marginMs: LEASE_MARGIN_MS, group: 'endpointId' },
        joins: Prisma.sql`JOIN "WebhookEndpoint" ep ON ep."id" = j."endpointId"`,
        where: Prisma.sql`ep."deliveryMode" = 'http' AND ep."enabled" AND ep."deletedAt" IS NULL`,
        only,
      });
      if (!claimed.length) return { claimed: 0, byKind: {} };
      const deliveries = await load(db, claimed);
      const previous = underway;
      await previous?.sent;
      // Per endpoint one after another, oldest first, so a receiver sees its events in order;
      // endpoints in parallel, so one slow receiver does not hold up the others.
      const byEndpoint = new Map<string, Delivery[]>();
      for (const d of deliveries) {
        const list = byEndpoint.get(d.endpointId);
        if (list) list.push(d);
        else byEndpoint.set(d.endpointId, [d]);
      }
      const secrets = new Map<string, Promise<string>>();
      const outcomes: Outcome[] = [];
      const sent = Promise.all(
        [...byEndpoint.values()].map(async (list) => {
          for (const d of list) outcomes.push(await deliver(db, d, secrets));
        }),
      ).then(() => undefined);
      // Recorded after the previous batch's outcomes, so a delivery's rows keep their order.
      const recorded = Promise.all([sent, previous?.recorded]).then(async () => {
        await record(db, outcomes);
        countOutcomes(outcomes);
      });
      const counts = { claimed: claimed.length, byKind: { 'webhook.delivery': claimed.length } };
      if (!overlap) {
        await recorded;
        return counts;
      }
      const round = { sent, recorded: recorded.catch((err: unknown) => opts.logger.warn({ err }, 'recording a webhook batch failed; its deliveries are retried when their lease ends')) };
      underway = round;
      void round.recorded.then(() => {
        if (underway === round) underway = undefined;
      });
      return counts;
    },
  };

  async function deliver(db: PrismaClient, d: Delivery, secrets: Map<string, Promise<string>>): Promise<Outcome> {
    const clock = offsetClock(opts.clock, d.offsetMs);
    const attemptedAt = clock.now();
    const post = await attempt(db, d, attemptedAt, secrets);
    const succeeded = post.statusCode === 200;
    const next = succeeded ? null : nextAttemptAfter(RETRY_DELAYS_MS, d.attemptCount, attemptedAt);
    if (succeeded) opts.logger.debug({ deliveryId: d.id, eventId: d.eventId, durationMs: post.durationMs }, 'webhook delivered');
    else
      opts.logger.info(
        { deliveryId: d.id, eventId: d.eventId, endpointId: d.endpointId, attempt: d.attemptCount, error: post.error, nextAttemptAt: next },
        next ? 'webhook attempt failed; will retry' : 'webhook delivery failed for good',
      );
    return { delivery: d, attemptedAt, succeeded, next, post };
  }

  /** Signs and POSTs; every refusal before the request (SSRF, missing key) is a failed attempt too. */
  async function attempt(db: PrismaClient, d: Delivery, now: Date, secrets: Map<string, Promise<string>>): Promise<PostOutcome> {
    const started = performance.now();
    const refused = (err: unknown): PostOutcome => ({
      statusCode: null,
      durationMs: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
      responseExcerpt: null,
    });
    let secret: string;
    try {
      // Test-mode endpoints may point anywhere: sellers test against localhost.
      if (d.mode === 'prod') await assertDeliverableUrl(d.url, { allowPrivate: opts.allowPrivateUrls });
      let opening = secrets.get(d.secretCiphertext);
      if (!opening) secrets.set(d.secretCiphertext, (opening = openSigningSecret(dataScope(db), d.mode, d.secretCiphertext)));
      secret = await opening;
    } catch (err) {
      return refused(err);
    }
    const signed = signDelivery({ id: d.eventId, type: d.type, createdAt: d.createdAt, payload: d.payload }, secret, now);
    // Production: the address is checked again at connect time, against DNS rebinding.
    return postSigned(d.url, signed, { timeoutMs, ...(d.mode === 'prod' ? { lookup: guarded } : {}) });
  }
}

async function load(db: PrismaClient, claimed: Claimed[]): Promise<Delivery[]> {
  const rows = await db.$queryRaw<(Omit<Delivery, keyof Claimed> & { id: string })[]>`
    SELECT d."id", d."eventId", d."endpointId", e."type", e."payload", e."createdAt", ep."url", ep."secretCiphertext"
    FROM "WebhookDelivery" d
    JOIN "Event" e ON e."id" = d."eventId"
    JOIN "WebhookEndpoint" ep ON ep."id" = d."endpointId"
    WHERE d."id" = ANY(${claimed.map((c) => c.id)})`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return claimed.map((c) => ({ ...byId.get(c.id)!, ...c, mode: c.mode as Mode }));
}

/** `webhook_deliveries_total` (metrics on only), once the outcomes are recorded. */
function countOutcomes(outcomes: readonly Outcome[]): void {
  const sink = metricsSink();
  if (!sink) return;
  let succeeded = 0;
  let retried = 0;
  for (const o of outcomes) {
    if (o.succeeded) succeeded++;
    else if (o.next) retried++;
  }
  const gaveUp = outcomes.length - succeeded - retried;
  if (succeeded) sink.webhookDeliveries('succeeded', succeeded);
  if (retried) sink.webhookDeliveries('retry_scheduled', retried);
  if (gaveUp) sink.webhookDeliveries('gave_up', gaveUp);
}

/**
 * Every attempt, and the new state of each delivery, in one transaction and two statements.
 * A success counts whoever holds the row now; a failure moves the row only if no later claim
 * took it over (our lease expired and another attempt is under way), so a stale worker cannot
 * push a delivery back or mark it failed.
 */
async function record(db: PrismaClient, outcomes: Outcome[]): Promise<void> {
  // One statement for the whole round: the client's createMany cost about half a millisecond per row.
  const attempts = db.$executeRaw`
    INSERT INTO "DeliveryAttempt" ("id", "storeId", "mode", "deliveryId", "attemptedAt", "statusCode", "durationMs", "error", "responseExcerpt", "source")
    SELECT v.id, v.store, v.mode::"Mode", v.delivery, v.at, v.status, v.ms, v.error, v.excerpt, 'http'
    FROM unnest(${outcomes.map(() => newId('attempt'))}::text[], ${outcomes.map((o) => o.delivery.storeId)}::text[], ${outcomes.map((o) => o.delivery.mode)}::text[],
                ${outcomes.map((o) => o.delivery.id)}::text[], ${outcomes.map((o) => o.attemptedAt.toISOString())}::timestamptz[],
                ${outcomes.map((o) => o.post.statusCode)}::int[], ${outcomes.map((o) => o.post.durationMs)}::int[],
                ${outcomes.map((o) => o.post.error)}::text[], ${outcomes.map((o) => o.post.responseExcerpt)}::text[])
      AS v(id, store, mode, delivery, at, status, ms, error, excerpt)`;
  const states = db.$executeRaw`
    UPDATE "WebhookDelivery" w
    SET "status" = CASE WHEN v.ok THEN 'succeeded' WHEN v.next IS NULL THEN 'failed' ELSE w."status" END,
        "completedAt" = CASE WHEN v.ok OR v.next IS NULL THEN v.at ELSE w."completedAt" END,
        "nextAttemptAt" = COALESCE(v.next, w."nextAttemptAt"),
        "leaseUntil" = NULL
    FROM unnest(${outcomes.map((o) => o.delivery.id)}::text[], ${outcomes.map((o) => o.delivery.attemptCount)}::int[],
                ${outcomes.map((o) => o.succeeded)}::boolean[], ${outcomes.map((o) => o.attemptedAt.toISOString())}::timestamptz[],
                ${outcomes.map((o) => o.next?.toISOString() ?? null)}::timestamptz[]) AS v(id, claimed, ok, at, next)
    WHERE w."id" = v.id AND w."status" = 'pending' AND (v.ok OR w."attemptCount" = v.claimed)`;
  await db.$transaction([attempts, states]);
}
