import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../logger.js';
import { openSigningSecret } from './endpoint-secrets.js';
import { postSigned, type PostOutcome } from './http-post.js';
import { nextAttemptAfter } from './retry-schedule.js';
import { signDelivery } from './signing.js';
import { assertDeliverableUrl, guardedLookup } from './url-safety.js';

export { RETRY_DELAYS_MS } from './retry-schedule.js';

export interface DeliveryWorkerOptions {
  db: PrismaClient;
  clock: Clock;
  logger: Logger;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: production endpoints may point at private addresses. */
  allowPrivateUrls: boolean;
  /** Deliveries claimed per round. */
  batchSize?: number;
  /** Real time an attempt may take before it counts as failed. */
  timeoutMs?: number;
}

/** A delivery this worker claimed, with what it needs to send it. */
interface Claimed {
  id: string;
  eventId: string;
  endpointId: string;
  attemptCount: number;
  type: string;
  payload: unknown;
  createdAt: Date;
  url: string;
  mode: Mode;
  secretCiphertext: string;
}

interface Outcome {
  claimed: Claimed;
  attemptedAt: Date;
  succeeded: boolean;
  /** When to try again; null after a success or when the schedule is exhausted. */
  next: Date | null;
  post: PostOutcome;
}

/** Beyond the attempts themselves, how long a claim stays ours: time to record the outcome. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Sends due deliveries of `http` endpoints. Several workers (the ones in each server process,
 * `npm run worker` processes) may run against one PostgreSQL database: a round claims its
 * rows with `FOR UPDATE SKIP LOCKED` and, in the same statement, counts the attempt and
 * pushes `nextAttemptAt` past the time the attempt can take (a lease). No transaction is
 * open during the HTTP call; the outcome is recorded afterwards. A worker that dies
 * mid-round leaves rows whose lease expires and which the next round sends again: delivery
 * is at least once, and receivers drop duplicates by `webhook-id`.
 */
export class DeliveryWorker {
  private readonly db: PrismaClient;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly allowPrivateUrls: boolean;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly guarded: ReturnType<typeof guardedLookup>;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private cancelSleep: (() => void) | undefined;

  constructor(opts: DeliveryWorkerOptions) {
    this.db = opts.db;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.allowPrivateUrls = opts.allowPrivateUrls;
    this.batchSize = opts.batchSize ?? 50;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.guarded = guardedLookup(opts.allowPrivateUrls);
  }

  /** Delivers what is due now; returns the number of attempts made. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.clock.now());
    if (!claimed.length) return 0;
    // Per endpoint one after another, oldest first, so a receiver sees its events in order;
    // endpoints in parallel, so one slow receiver does not hold up the others.
    const byEndpoint = new Map<string, Claimed[]>();
    for (const c of claimed) {
      const list = byEndpoint.get(c.endpointId);
      if (list) list.push(c);
      else byEndpoint.set(c.endpointId, [c]);
    }
    const secrets = new Map<string, Promise<string>>();
    const outcomes: Outcome[] = [];
    await Promise.all(
      [...byEndpoint.values()].map(async (list) => {
        for (const c of list) outcomes.push(await this.deliver(c, secrets));
      }),
    );
    // Recorded once per round: two statements instead of two per delivery. A worker that
    // dies before this line leaves its claims to expire, and they are sent again.
    await this.record(outcomes);
    return claimed.length;
  }

  /** Runs rounds until stop(): at once again after a full batch, else after `intervalMs`. */
  start(intervalMs = 500): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = (async () => {
      while (!this.stopped) {
        let attempts = 0;
        try {
          attempts = await this.runOnce();
        } catch (err) {
          this.logger.warn({ err }, 'webhook delivery round failed');
        }
        if (!this.stopped && attempts < this.batchSize) await this.sleep(intervalMs);
      }
    })();
  }

  /** Ends the loop after the round in progress (its attempts are recorded, not abandoned). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelSleep?.();
    await this.loop;
    this.loop = undefined;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.cancelSleep = done;
    });
  }

  /**
   * One statement: lock up to a batch of due rows that no other worker holds, count the
   * attempt and lease the rows for as long as the round can take (attempts of one endpoint
   * run one after another, and outcomes are recorded when the round ends), then read what
   * sending needs.
   */
  private async claim(now: Date): Promise<Claimed[]> {
    return this.db.$queryRaw<Claimed[]>`
      WITH locked AS (
        SELECT d."id", d."endpointId"
        FROM "WebhookDelivery" d
        JOIN "WebhookEndpoint" ep ON ep."id" = d."endpointId"
        WHERE d."status" = 'pending' AND d."nextAttemptAt" <= ${now}
          AND ep."deliveryMode" = 'http' AND ep."enabled" AND ep."deletedAt" IS NULL
        ORDER BY d."id"
        LIMIT ${this.batchSize}
        FOR UPDATE OF d SKIP LOCKED
      ), ranked AS (
        SELECT "id", row_number() OVER (PARTITION BY "endpointId" ORDER BY "id") AS pos FROM locked
      ), claimed AS (
        UPDATE "WebhookDelivery" w
        SET "attemptCount" = w."attemptCount" + 1,
            "nextAttemptAt" = ${now}::timestamptz + ((SELECT max(pos) FROM ranked) * ${this.timeoutMs}::bigint + ${LEASE_MARGIN_MS}::bigint) * interval '1 millisecond'
        FROM ranked
        WHERE w."id" = ranked."id"
        RETURNING w."id", w."eventId", w."endpointId", w."attemptCount"
      )
      SELECT c."id", c."eventId", c."endpointId", c."attemptCount",
             e."type", e."payload", e."createdAt", ep."url", ep."mode"::text AS "mode", ep."secretCiphertext"
      FROM claimed c
      JOIN "Event" e ON e."id" = c."eventId"
      JOIN "WebhookEndpoint" ep ON ep."id" = c."endpointId"
      ORDER BY c."id"`;
  }

  private async deliver(c: Claimed, secrets: Map<string, Promise<string>>): Promise<Outcome> {
    const attemptedAt = this.clock.now();
    const outcome = await this.attempt(c, attemptedAt, secrets);
    const succeeded = outcome.statusCode === 200;
    const next = succeeded ? null : nextAttemptAfter(c.attemptCount, attemptedAt);
    if (succeeded) this.logger.debug({ deliveryId: c.id, eventId: c.eventId, durationMs: outcome.durationMs }, 'webhook delivered');
    else
      this.logger.info(
        { deliveryId: c.id, eventId: c.eventId, endpointId: c.endpointId, attempt: c.attemptCount, error: outcome.error, nextAttemptAt: next },
        next ? 'webhook attempt failed; will retry' : 'webhook delivery failed for good',
      );
    return { claimed: c, attemptedAt, succeeded, next, post: outcome };
  }

  /**
   * Every attempt, and the new state of each delivery, in one transaction. A success counts
   * whoever holds the row now; a failure moves the row only if no later claim took it over
   * (our lease expired and another attempt is under way), so a stale worker cannot push a
   * delivery back or mark it failed.
   */
  private async record(outcomes: Outcome[]): Promise<void> {
    const attempts = this.db.deliveryAttempt.createMany({
      data: outcomes.map((o) => ({
        id: newId('attempt'),
        deliveryId: o.claimed.id,
        attemptedAt: o.attemptedAt,
        statusCode: o.post.statusCode,
        durationMs: o.post.durationMs,
        error: o.post.error,
        responseExcerpt: o.post.responseExcerpt,
        source: 'http',
      })),
    });
    const states = this.db.$executeRaw`
      UPDATE "WebhookDelivery" w
      SET "status" = CASE WHEN v.ok THEN 'succeeded' WHEN v.next IS NULL THEN 'failed' ELSE w."status" END,
          "completedAt" = CASE WHEN v.ok OR v.next IS NULL THEN v.at ELSE w."completedAt" END,
          "nextAttemptAt" = COALESCE(v.next, w."nextAttemptAt")
      FROM unnest(${outcomes.map((o) => o.claimed.id)}::text[], ${outcomes.map((o) => o.claimed.attemptCount)}::int[],
                  ${outcomes.map((o) => o.succeeded)}::boolean[], ${outcomes.map((o) => o.attemptedAt.toISOString())}::timestamptz[],
                  ${outcomes.map((o) => o.next?.toISOString() ?? null)}::timestamptz[]) AS v(id, claimed, ok, at, next)
      WHERE w."id" = v.id AND w."status" = 'pending' AND (v.ok OR w."attemptCount" = v.claimed)`;
    await this.db.$transaction([attempts, states]);
  }

  /** Signs and POSTs; every refusal before the request (SSRF, missing key) is a failed attempt too. */
  private async attempt(c: Claimed, now: Date, secrets: Map<string, Promise<string>>): Promise<PostOutcome> {
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
      if (c.mode === 'prod') await assertDeliverableUrl(c.url, { allowPrivate: this.allowPrivateUrls });
      let opening = secrets.get(c.secretCiphertext);
      if (!opening) secrets.set(c.secretCiphertext, (opening = openSigningSecret(this.db, c.mode, c.secretCiphertext)));
      secret = await opening;
    } catch (err) {
      return refused(err);
    }
    const signed = signDelivery({ id: c.eventId, type: c.type, createdAt: c.createdAt, payload: c.payload }, secret, now);
    // Production: the address is checked again at connect time, against DNS rebinding.
    return postSigned(c.url, signed, { timeoutMs: this.timeoutMs, ...(c.mode === 'prod' ? { lookup: this.guarded } : {}) });
  }
}
