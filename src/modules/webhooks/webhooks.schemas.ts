import { z } from 'zod';
import { httpUrl, resourceId } from '../../lib/schemas.js';
import { pageQuery } from '../../lib/pagination.js';
import { EVENT_TYPES } from '../events/events.service.js';

/** Input schemas of the webhook endpoint operations, in the /v1 field names (GraphQL converts to them). */

export const DELIVERY_MODES = ['http', 'cli'] as const;
export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const eventType = z.enum(EVENT_TYPES, { error: `must be one of: ${EVENT_TYPES.join(', ')}` });

/** Subscribed types; duplicates collapse. Omitted on create = every type (see createWebhookSchema). */
const eventList = z
  .array(eventType)
  .min(1, 'must list at least one event type; disable the endpoint (status disabled) to stop deliveries')
  .transform((types) => [...new Set(types)]);

const name = z.string().trim().min(1, 'must not be blank').max(200);

export const createWebhookSchema = z.strictObject({
  url: httpUrl.optional(),
  name: name.optional(),
  events: eventList.default([...EVENT_TYPES]),
  delivery_mode: z.enum(DELIVERY_MODES).default('http'),
});
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z.strictObject({
  id: resourceId,
  url: httpUrl.optional(),
  name: name.nullable().optional(),
  status: z.enum(WEBHOOK_STATUSES).optional(),
  events: eventList.optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

/** An endpoint by id (path); other query parameters are ignored. */
export const webhookIdSchema = z.object({ id: resourceId });

export const listWebhooksSchema = pageQuery(10);

export const deliveryFilterSchema = z.object({ status: z.enum(DELIVERY_STATUSES).optional() });
export const listDeliveriesSchema = pageQuery(10).extend({ id: resourceId, ...deliveryFilterSchema.shape });
export type ListDeliveriesInput = z.infer<typeof listDeliveriesSchema>;

export const resendEventSchema = z.object({ id: resourceId, event_id: resourceId });
export type ResendEventInput = z.infer<typeof resendEventSchema>;

export const eventFilterSchema = z.object({ type: z.enum(EVENT_TYPES).optional() });
