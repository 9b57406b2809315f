import type { Prisma as P, WebhookEndpoint } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { AppError, invalidField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { openSigningSecret, sealSigningSecret } from './endpoint-secrets.js';
import { generateSigningSecret } from './signing.js';
import { assertDeliverableUrl, privateWebhookUrlsAllowed } from './url-safety.js';
import {
  createWebhookSchema,
  listDeliveriesSchema,
  listWebhooksSchema,
  resendEventSchema,
  updateWebhookSchema,
  webhookIdSchema,
} from './webhooks.schemas.js';

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

const liveEndpoint = (ctx: RequestContext, id: string) => ({ id: parseInput(webhookIdSchema, id), ...scope(ctx), deletedAt: null });

/**
 * Where the service itself will connect: only http endpoints of the production environment are
 * guarded (test-mode sellers point at their own machine; cli endpoints are never contacted).
 */
async function checkUrl(ctx: RequestContext, deliveryMode: string, url: string) {
  if (ctx.mode === 'prod' && deliveryMode === 'http') await assertDeliverableUrl(url, { allowPrivate: privateWebhookUrlsAllowed() });
}

/** Creates the endpoint; the returned secret is the only time it leaves the service unasked. */
export async function createWebhook(ctx: RequestContext, raw: unknown): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const input = parseInput(createWebhookSchema, raw);
  if (input.delivery_mode === 'http' && !input.url) throw invalidField(['url'], 'is required for delivery_mode http');
  const url = input.url ?? CLI_ENDPOINT_URL;
  await checkUrl(ctx, input.delivery_mode, url);
  const secret = generateSigningSecret();
  const secretCiphertext = await sealSigningSecret(ctx.db, ctx.mode, secret);
  const now = ctx.clock.now();
  const endpoint = await ctx.db.webhookEndpoint.create({
    data: {
      id: newId('webhook'),
      ...scope(ctx),
      name: input.name ?? null,
      url,
      events: input.events,
      deliveryMode: input.delivery_mode,
      enabled: true,
      secretCiphertext,
      createdAt: now,
      updatedAt: now,
    },
  });
  return { endpoint, secret };
}

/** Reads take an optional Prisma selection so GraphQL loads exactly what a query asks for. */
export async function findWebhook<Q extends { include?: P.WebhookEndpointInclude; select?: P.WebhookEndpointSelect }>(
  ctx: RequestContext,
  id: string,
  query?: Q,
) {
  const row = await ctx.db.webhookEndpoint.findFirst({ ...(query ?? {}), where: liveEndpoint(ctx, id) });
  if (!row) throw notFound('Webhook', id);
  return row;
}

export const getWebhook = (ctx: RequestContext, id: string): Promise<WebhookEndpoint> => findWebhook(ctx, id);

export function webhookListFilter(ctx: RequestContext): P.WebhookEndpointWhereInput {
  return { ...scope(ctx), deletedAt: null };
}

export async function listWebhooks(ctx: RequestContext, raw: unknown) {
  const input = parseInput(listWebhooksSchema, raw);
  const where = webhookListFilter(ctx);
  const [items, total] = await Promise.all([
    ctx.db.webhookEndpoint.findMany({ where, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.webhookEndpoint.count({ where }),
  ]);
  return toPage(items, total, input);
}

/**
 * A conditional write on a live endpoint: a concurrent delete turns it into a 404 instead of
 * resurrecting or changing a deleted endpoint.
 */
async function writeLive(ctx: RequestContext, id: string, data: P.WebhookEndpointUpdateManyMutationInput): Promise<WebhookEndpoint> {
  const { count } = await ctx.db.webhookEndpoint.updateMany({ where: liveEndpoint(ctx, id), data });
  if (!count) throw notFound('Webhook', id);
  return findWebhook(ctx, id);
}

/**
 * Only the supplied fields change. Disabling keeps pending deliveries waiting (the worker skips
 * disabled endpoints; they go out after re-enabling) and events recorded meanwhile are not
 * queued for the endpoint.
 */
export async function updateWebhook(ctx: RequestContext, id: string, raw: unknown): Promise<WebhookEndpoint> {
  const patch = parseInput(updateWebhookSchema, raw);
  const current = await findWebhook(ctx, id);
  if (patch.url !== undefined) await checkUrl(ctx, current.deliveryMode, patch.url);
  return writeLive(ctx, current.id, {
    ...(patch.url !== undefined ? { url: patch.url } : {}),
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.status !== undefined ? { enabled: patch.status === 'enabled' } : {}),
    ...(patch.events !== undefined ? { events: patch.events } : {}),
    updatedAt: ctx.clock.now(),
  });
}

/**
 * Soft delete: the endpoint disappears from the API and receives nothing more. Its pending
 * deliveries are marked failed in the same transaction (nothing will attempt them); one fanned
 * out by a transaction still in flight at that moment stays pending, and the worker, which only
 * claims deliveries of enabled, non-deleted endpoints, never sends it.
 */
export async function deleteWebhook(ctx: RequestContext, id: string): Promise<WebhookEndpoint> {
  const now = ctx.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const { count } = await tx.webhookEndpoint.updateMany({ where: liveEndpoint(ctx, id), data: { deletedAt: now, updatedAt: now } });
    if (!count) throw notFound('Webhook', id);
    await tx.webhookDelivery.updateMany({ where: { endpointId: id, status: 'pending' }, data: { status: 'failed', completedAt: now } });
    return tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  });
}

export async function getWebhookSecret(ctx: RequestContext, id: string): Promise<string> {
  const endpoint = await findWebhook(ctx, id, { select: { secretCiphertext: true } });
  return openSigningSecret(ctx.db, ctx.mode, endpoint.secretCiphertext);
}

/**
 * A new secret replaces the old one at once: every delivery signed after this returns (HTTP
 * attempts and pull-mode items alike, both sign when sent) uses the new secret.
 */
export async function rotateWebhookSecret(ctx: RequestContext, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  await findWebhook(ctx, id, { select: { id: true } });
  const secret = generateSigningSecret();
  const secretCiphertext = await sealSigningSecret(ctx.db, ctx.mode, secret);
  const endpoint = await writeLive(ctx, id, { secretCiphertext, updatedAt: ctx.clock.now() });
  return { endpoint, secret };
}

export async function listDeliveries(ctx: RequestContext, id: string, raw: unknown) {
  const input = parseInput(listDeliveriesSchema, raw);
  const endpoint = await findWebhook(ctx, id, { select: { id: true } });
  const where: P.WebhookDeliveryWhereInput = { endpointId: endpoint.id, ...(input.status ? { status: input.status } : {}) };
  const [items, total] = await Promise.all([
    ctx.db.webhookDelivery.findMany({ where, include: DELIVERY_INCLUDE, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.webhookDelivery.count({ where }),
  ]);
  return toPage(items, total, input);
}

/**
 * Manual resend: that endpoint's delivery of the event becomes pending and due now, with a fresh
 * retry schedule (attempt_count 0; earlier attempts stay in its history). It is created when
 * the endpoint never had one (an event from before the endpoint subscribed). Nothing is sent
 * here and no attempt is recorded; the worker (http) or the next pull (cli) delivers it. Other
 * endpoints' deliveries are untouched. If a worker is sending the same delivery right now the
 * receiver may get it twice, which at-least-once delivery allows (webhook-id is stable).
 */
export async function resendEvent(ctx: RequestContext, raw: { id: string; event_id: string }): Promise<DeliveryWithAttempts> {
  const input = parseInput(resendEventSchema, raw);
  const now = ctx.clock.now();
  const endpoint = await findWebhook(ctx, input.id);
  const event = await ctx.db.event.findFirst({ where: { id: input.event_id, ...scope(ctx) }, select: { id: true, type: true } });
  if (!event) throw notFound('Event', input.event_id);
  if (!endpoint.enabled) {
    throw new AppError('bad_request', `Webhook ${endpoint.id} is disabled; enable it (status enabled) before resending`, [
      { path: ['id'], message: 'webhook endpoint is disabled; enable it before resending' },
    ]);
  }
  const key = { eventId: event.id, endpointId: endpoint.id };
  const existing = await ctx.db.webhookDelivery.findUnique({ where: { eventId_endpointId: key }, select: { id: true } });
  if (!existing && !endpoint.events.includes(event.type)) {
    throw new AppError('bad_request', `Webhook ${endpoint.id} is not subscribed to ${event.type} events`, [
      { path: ['event_id'], message: `the endpoint is not subscribed to ${event.type}; add it to its events first` },
    ]);
  }
  return ctx.db.$transaction(async (tx) => {
    // Insert-or-keep, then reset: safe against a concurrent resend or fan-out of the same pair.
    await tx.webhookDelivery.createMany({ data: [{ id: newId('delivery'), ...key, nextAttemptAt: now, createdAt: now }], skipDuplicates: true });
    return tx.webhookDelivery.update({
      where: { eventId_endpointId: key },
      data: { status: 'pending', attemptCount: 0, nextAttemptAt: now, completedAt: null },
      include: DELIVERY_INCLUDE,
    });
  });
}
