import type { ListedUsageEvent } from './usage-events.service.js';

/** /v1 JSON of a usage event, as the client's `UsageEventApiResponseDto` reads it. */
export function serializeUsageEvent({ event: e, matched }: ListedUsageEvent) {
  return {
    id: e.id,
    object: 'usage_event',
    customer_id: e.customerId,
    event_id: e.idempotencyKey,
    name: e.eventName,
    properties: e.properties,
    timestamp: e.timestamp.toISOString(),
    created_at: e.createdAt.toISOString(),
    matched_meters: matched,
  };
}
