import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import type { DeliveryWithAttempts } from './webhooks.service.js';

/**
 * The /v1 JSON of a webhook endpoint (the official client's WebhookEntity). `secret` appears
 * only where the caller passes it: create and rotation.
 */
export function serializeWebhook(w: WebhookEndpoint, secret?: string) {
  return {
    id: w.id,
    mode: w.mode,
    object: 'webhook',
    store_id: w.storeId,
    name: w.name,
    url: w.url,
    delivery_mode: w.deliveryMode,
    status: w.enabled ? 'enabled' : 'disabled',
    events: w.events,
    ...(secret !== undefined ? { secret } : {}),
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}

/** A delivery of one event to one endpoint, with every attempt so far (oldest first). */
export function serializeDelivery(d: DeliveryWithAttempts) {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.eventId,
    event_type: d.event.type,
    endpoint_id: d.endpointId,
    status: d.status,
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
