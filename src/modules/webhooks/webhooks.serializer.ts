import { z } from 'zod';
import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { isoTimestamp, modeField, pageOf } from '../../lib/response-schemas.js';
import { EVENT_TYPES } from '../events/events.service.js';
import { DELIVERY_MODES, DELIVERY_STATUSES, WEBHOOK_STATUSES } from './webhooks.schemas.js';
import type { DeliveryWithAttempts } from './webhooks.service.js';

/** The /v1 WebhookEntity. */
export const webhookEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('webhook'),
    store_id: z.string(),
    name: z.string().nullable(),
    // The empty string for a cli endpoint created without one.
    url: z.string(),
    delivery_mode: z.enum(DELIVERY_MODES),
    status: z.enum(WEBHOOK_STATUSES),
    events: z.array(z.enum(EVENT_TYPES)),
    secret: z.string().optional().meta({ description: 'Only on creation and rotation' }),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'WebhookEntity' });
export type WebhookEntity = z.infer<typeof webhookEntity>;

export const webhookList = pageOf(webhookEntity).meta({ id: 'WebhookListEntity' });

/**
 * The /v1 JSON of a webhook endpoint (the official client's WebhookEntity). `secret` appears
 * only where the caller passes it: create and rotation.
 */
export function serializeWebhook(w: WebhookEndpoint, secret?: string): WebhookEntity {
  return {
    id: w.id,
    mode: w.mode,
    object: 'webhook',
    store_id: w.storeId,
    name: w.name,
    url: w.url,
    delivery_mode: w.deliveryMode as WebhookEntity['delivery_mode'],
    status: w.enabled ? 'enabled' : 'disabled',
    events: w.events as WebhookEntity['events'],
    ...(secret !== undefined ? { secret } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** The /v1 WebhookSecretEntity: GET …/secret and rotation. */
export const webhookSecretEntity = z.object({ secret: z.string() }).meta({ id: 'WebhookSecretEntity' });

export const deliveryAttemptEntity = z.object({
  id: z.string(),
  attempted_at: isoTimestamp,
  // Null when the receiver did not answer (timeout, refused).
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable(),
  // http (the worker's POST) | ack (a pull-mode acknowledgement)
  source: z.string(),
});

export const webhookDeliveryEntity = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    event_id: z.string(),
    event_type: z.enum(EVENT_TYPES),
    endpoint_id: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    next_attempt_at: isoTimestamp.nullable(),
    completed_at: isoTimestamp.nullable(),
    created_at: isoTimestamp,
    attempts: z.array(deliveryAttemptEntity),
  })
  .meta({ id: 'WebhookDeliveryEntity' });
export type WebhookDeliveryEntity = z.infer<typeof webhookDeliveryEntity>;

/** A delivery of one event to one endpoint, with every attempt so far (oldest first). */
export function serializeDelivery(d: DeliveryWithAttempts): WebhookDeliveryEntity {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.eventId,
    event_type: d.event.type as WebhookDeliveryEntity['event_type'],
    endpoint_id: d.endpointId,
    status: d.status as WebhookDeliveryEntity['status'],
    attempt_count: d.attemptCount,
    // Only meaningful while pending; a finished delivery has no next attempt.
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    completed_at: d.completedAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    attempts: d.attempts.map((a) => ({
      id: a.id,
      attempted_at: a.attemptedAt.toISOString(),
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      error: a.error,
      response_excerpt: a.responseExcerpt,
      source: a.source,
    })),
  };
}

/** The /v1 WebhookPendingEventListEntity: a cli endpoint's unacknowledged events, oldest first. */
export const webhookPendingEventListEntity = z
  .object({
    items: z.array(
      z
        .object({
          id: z.string(),
          object: z.literal('webhook_event'),
          event_type: z.enum(EVENT_TYPES),
          created_at: isoTimestamp,
          body: z.string(),
          headers: z.record(z.string(), z.string()),
        })
        .meta({ id: 'WebhookPendingEventEntity' }),
    ),
  })
  .meta({ id: 'WebhookPendingEventListEntity' });
export type WebhookPendingEventList = z.infer<typeof webhookPendingEventListEntity>;

export const webhookEventAckEntity = z
  .object({ id: z.string(), object: z.literal('webhook_event_ack'), success: z.boolean() })
  .meta({ id: 'WebhookEventAckEntity' });
