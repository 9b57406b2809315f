import type { Prisma as P, WebhookEndpoint } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction } from '../../db/tenant.js';
import { AppError, invalidField, notFound, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { listing } from '../../db/listing.js';
import type { PageInput } from '../../lib/pagination.js';
import { openSigningSecret, sealSigningSecret } from './endpoint-secrets.js';
import { generateSigningSecret } from './signing.js';
import { assertDeliverableUrl, privateWebhookUrlsAllowed } from './url-safety.js';
import type { CreateWebhookInput, ListDeliveriesInput, ResendEventInput, UpdateWebhookInput } from './webhooks.schemas.js';

/**
 * `url` of a `cli` endpoint created without one. The official model requires a string and the
 * service never connects to a cli endpoint, so "no URL" is the empty string.
 */
export const CLI_ENDPOINT_URL = '';

/** What the deliveries list and resend return: the delivery, its event's identity and every attempt. */
export const DELIVERY_INCLUDE = {
  event: { select: { id: true, type: true, createdAt: true } },
  attempts: { orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] },
} satisfies P.WebhookDeliveryInclude;
export type DeliveryWithAttempts = P.WebhookDeliveryGetPayload<{ include: typeof DELIVERY_INCLUDE }>;

type EndpointSelection = { include?: P.WebhookEndpointInclude; select?: P.WebhookEndpointSelect };

/** A deleted endpoint is gone from the API. */
const LIVE = { deletedAt: null } satisfies P.WebhookEndpointWhereInput;

/**
 * Where the service itself will connect: only http endpoints of the production environment are
 * guarded (test-mode sellers point at their own machine; cli endpoints are never contacted).
 * A DNS lookup: it runs before the write's transaction.
 */
export async function checkEndpointUrl(ctx: RequestContext, deliveryMode: string, url: string | undefined) {
  if (url && ctx.mode === 'prod' && deliveryMode === 'http') await assertDeliverableUrl(url, { allowPrivate: privateWebhookUrlsAllowed() });
}

/** Creates the endpoint; the returned secret is the only time it leaves the service unasked. */
export async function createWebhook(ctx: RequestContext, input: CreateWebhookInput): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (input.delivery_mode === 'http' && !input.url) throw invalidField(['url'], 'is required for delivery_mode http');
  const secret = generateSigningSecret();
  const now = ctx.clock.now();
  const endpoint = await db(ctx).webhookEndpoint.create({
    data: {
      id: newId('webhook'),
      name: input.name ?? null,
      url: input.url ?? CLI_ENDPOINT_URL,
      events: input.events,
      deliveryMode: input.delivery_mode,
      enabled: true,
      secretCiphertext: await sealSigningSecret(ctx.data, ctx.mode, secret),
      createdAt: now,
      updatedAt: now,
    },
  });
  return { endpoint, secret };
}

/** A live endpoint with the caller's selection; null when the caller has none such. */
export function findWebhook(ctx: RequestContext, input: { id: string }, selection: EndpointSelection = {}) {
  return db(ctx).webhookEndpoint.findFirst({ ...selection, where: { id: input.id, ...LIVE } });
}

export async function findWebhookOrThrow(ctx: RequestContext, input: { id: string }): Promise<WebhookEndpoint> {
  return orNotFound(findWebhook(ctx, input), 'Webhook', input.id);
}

/** The store's live endpoints, newest first. */
export function webhookListing(ctx: RequestContext) {
  return listing(db(ctx).webhookEndpoint, LIVE, { id: 'desc' });
}

export function listWebhooks(ctx: RequestContext, input: PageInput) {
  return webhookListing(ctx).page(input);
}

/**
 * A conditional write on a live endpoint: only the fields given change, and a concurrent
 * delete turns it into a 404 instead of resurrecting or changing a deleted endpoint.
 */
async function writeLive(ctx: RequestContext, id: string, data: P.WebhookEndpointUpdateManyMutationInput): Promise<WebhookEndpoint> {
  const { count } = await db(ctx).webhookEndpoint.updateMany({ where: { id, ...LIVE }, data });
  if (!count) throw notFound('Webhook', id);
  return db(ctx).webhookEndpoint.findUniqueOrThrow({ where: { id } });
}

/**
 * Only the supplied fields change. Disabling keeps pending deliveries waiting (the worker skips
 * disabled endpoints; they go out after re-enabling) and events recorded meanwhile are not
 * queued for the endpoint. A new URL is checked before the write (see `checkEndpointUrl`),
 * against the endpoint's delivery mode.
 */
export async function updateWebhook(ctx: RequestContext, patch: UpdateWebhookInput): Promise<WebhookEndpoint> {
  return writeLive(ctx, patch.id, {
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.status !== undefined ? { enabled: patch.status === 'enabled' } : {}),
    ...(patch.events !== undefined ? { events: patch.events } : {}),
    updatedAt: ctx.clock.now(),
  });
}

/** Before an update: a new URL of an http endpoint in production must be deliverable. */
export async function checkUpdatedUrl(ctx: RequestContext, patch: UpdateWebhookInput): Promise<void> {
  if (patch.url === undefined) return;
  const current = await findWebhookOrThrow(ctx, patch);
  await checkEndpointUrl(ctx, current.deliveryMode, patch.url);
}

/**
 * Soft delete: the endpoint disappears from the API and receives nothing more. Its pending
 * deliveries are marked failed in the same transaction (nothing will attempt them); one fanned
 * out by a transaction still in flight at that moment stays pending, and the worker, which only
 * claims deliveries of enabled, non-deleted endpoints, never sends it.
 */
export async function deleteWebhook(ctx: RequestContext, input: { id: string }): Promise<WebhookEndpoint> {
  const now = ctx.clock.now();
  return inTransaction(ctx, async (tx) => {
    const { count } = await db(tx).webhookEndpoint.updateMany({ where: { id: input.id, ...LIVE }, data: { deletedAt: now, updatedAt: now } });
    if (!count) throw notFound('Webhook', input.id);
    await db(tx).webhookDelivery.updateMany({ where: { endpointId: input.id, status: 'pending' }, data: { status: 'failed', completedAt: now } });
    return db(tx).webhookEndpoint.findUniqueOrThrow({ where: { id: input.id } });
  });
}

export async function getWebhookSecret(ctx: RequestContext, input: { id: string }): Promise<{ secret: string }> {
  const endpoint = await findWebhook(ctx, input, { select: { secretCiphertext: true } });
  if (!endpoint) throw notFound('Webhook', input.id);
  return { secret: await openSigningSecret(ctx.data, ctx.mode, endpoint.secretCiphertext) };
}

/**
 * A new secret replaces the old one at once: every delivery signed after this returns (HTTP
 * attempts and pull-mode items alike, both sign when sent) uses the new secret. An unknown
 * endpoint is a 404 before anything is sealed (a missing production key must not mask it).
 */
export async function rotateWebhookSecret(ctx: RequestContext, input: { id: string }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await findWebhookOrThrow(ctx, input);
  const secret = generateSigningSecret();
  const secretCiphertext = await sealSigningSecret(ctx.data, ctx.mode, secret);
  const endpoint = await writeLive(ctx, input.id, { secretCiphertext, updatedAt: ctx.clock.now() });
  return { endpoint, secret };
}

/** An endpoint's deliveries, newest first, optionally by status; a 404 when the caller has no such endpoint. */
export function deliveryListing(ctx: RequestContext, endpointId: string, filter: { status?: string }) {
  const where: P.WebhookDeliveryWhereInput = { endpointId, endpoint: LIVE, ...(filter.status ? { status: filter.status } : {}) };
  return listing(db(ctx).webhookDelivery, where, { id: 'desc' });
}

export async function listDeliveries(ctx: RequestContext, input: ListDeliveriesInput) {
  await findWebhookOrThrow(ctx, input);
  return deliveryListing(ctx, input.id, input).page(input, { include: DELIVERY_INCLUDE });
}

/**
 * Manual resend: that endpoint's delivery of the event becomes pending and due now, with a fresh
 * retry schedule (attempt_count 0; earlier attempts stay in its history). It is created when
 * the endpoint never had one (an event from before the endpoint subscribed). Nothing is sent
 * here and no attempt is recorded; the worker (http) or the next pull (cli) delivers it. Other
 * endpoints' deliveries are untouched. If a worker is sending the same delivery right now the
 * receiver may get it twice, which at-least-once delivery allows (webhook-id is stable).
 */
export async function resendEvent(ctx: RequestContext, input: ResendEventInput): Promise<DeliveryWithAttempts> {
  const now = ctx.clock.now();
  const endpoint = await findWebhookOrThrow(ctx, input);
  const event = await db(ctx).event.findUnique({ where: { id: input.event_id }, select: { id: true, type: true } });
  if (!event) throw notFound('Event', input.event_id);
  if (!endpoint.enabled) {
    throw new AppError('invalid_state', `Webhook ${endpoint.id} is disabled; enable it (status enabled) before resending`, [
      { path: ['id'], message: 'webhook endpoint is disabled; enable it before resending' },
    ]);
  }
  const key = { eventId: event.id, endpointId: endpoint.id };
  const existing = await db(ctx).webhookDelivery.findUnique({ where: { eventId_endpointId: key }, select: { id: true } });
  if (!existing && !endpoint.events.includes(event.type)) {
    throw new AppError('invalid_state', `Webhook ${endpoint.id} is not subscribed to ${event.type} events`, [
      { path: ['event_id'], message: `the endpoint is not subscribed to ${event.type}; add it to its events first` },
    ]);
  }
  return inTransaction(ctx, async (tx) => {
    // Insert-or-keep, then reset: safe against a concurrent resend or fan-out of the same pair.
    await db(tx).webhookDelivery.createMany({ data: [{ id: newId('delivery'), ...key, nextAttemptAt: now, createdAt: now }], skipDuplicates: true });
    return db(tx).webhookDelivery.update({
      where: { eventId_endpointId: key },
      data: { status: 'pending', attemptCount: 0, nextAttemptAt: now, leaseUntil: null, completedAt: null },
      include: DELIVERY_INCLUDE,
    });
  });
}

/** The store's events, newest first, optionally of one type. */
export function eventListing(ctx: RequestContext, filter: { type?: string }) {
  const where: P.EventWhereInput = filter.type ? { type: filter.type } : {};
  return listing(db(ctx).event, where, { id: 'desc' });
}
