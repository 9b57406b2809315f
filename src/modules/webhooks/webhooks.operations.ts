import { z } from 'zod';
import { defineOperation } from '../../core/operation.js';
import type { EventType } from '../events/events.service.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { acknowledgeEventSchema, listPendingEventsSchema } from './pending-events.schemas.js';
import { acknowledgeEvent, listPendingEvents } from './pending-events.service.js';
import {
  serializeDelivery,
  serializeWebhook,
  webhookDeliveryEntity,
  webhookEntity,
  webhookEventAckEntity,
  webhookList,
  webhookPendingEventListEntity,
  webhookSecretEntity,
  type WebhookPendingEventList,
} from './webhooks.serializer.js';
import { createWebhookSchema, listDeliveriesSchema, listWebhooksSchema, resendEventSchema, updateWebhookSchema, webhookIdSchema } from './webhooks.schemas.js';
import {
  checkEndpointUrl,
  checkUpdatedUrl,
  createWebhook,
  deleteWebhook,
  findWebhookOrThrow,
  getWebhookSecret,
  listDeliveries,
  listWebhooks,
  resendEvent,
  rotateWebhookSecret,
  updateWebhook,
} from './webhooks.service.js';

const render = (_ctx: unknown, w: Parameters<typeof serializeWebhook>[0]) => serializeWebhook(w);

/** The signing secret is shown on creation and rotation only; a replay answers without it (GET …/secret has it). */
export const createWebhookOp = defineOperation({
  name: 'webhooks.create',
  summary: 'Create a webhook endpoint',
  description: '`url` is required for `delivery_mode: http` (the default); all event types when `events` is omitted. The answer holds the signing secret, which a replay of the request does not repeat.',
  input: createWebhookSchema,
  write: true,
  prepare: (ctx, input) => checkEndpointUrl(ctx, input.delivery_mode, input.url),
  output: webhookEntity,
  run: createWebhook,
  render: (_ctx, r) => serializeWebhook(r.endpoint, r.secret),
  idOf: (r) => r.endpoint.id,
  secretFields: ['secret'],
});

export const getWebhookOp = defineOperation({ name: 'webhooks.get', summary: 'Retrieve a webhook endpoint', input: webhookIdSchema, write: false, output: webhookEntity, run: findWebhookOrThrow, render });

export const listWebhooksOp = defineOperation({
  name: 'webhooks.list',
  summary: 'List webhook endpoints',
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: listWebhooksSchema,
  write: false,
  output: webhookList,
  run: listWebhooks,
  render: (_ctx, page) => mapPage(page, (w) => serializeWebhook(w)),
});

export const updateWebhookOp = defineOperation({
  name: 'webhooks.update',
  summary: 'Update a webhook endpoint',
  description: 'Only the fields supplied change (URL, name, status, event filter); disable an endpoint to pause its deliveries.',
  input: updateWebhookSchema,
  write: true,
  prepare: checkUpdatedUrl,
  output: webhookEntity,
  run: updateWebhook,
  render,
});

export const deleteWebhookOp = defineOperation({ name: 'webhooks.delete', summary: 'Delete a webhook endpoint', description: 'The endpoint disappears from the API and receives nothing more; its pending deliveries are marked failed.', input: webhookIdSchema, write: true, output: webhookEntity, run: deleteWebhook, render });

export const getWebhookSecretOp = defineOperation({
  name: 'webhooks.secret',
  summary: "Retrieve a webhook endpoint's signing secret",
  description: 'The secret that signs deliveries to this endpoint.',
  input: webhookIdSchema,
  write: false,
  output: webhookSecretEntity,
  run: getWebhookSecret,
  render: (_ctx, r) => r,
  secretFields: ['secret'],
});

export const rotateWebhookSecretOp = defineOperation({
  name: 'webhooks.rotate_secret',
  summary: "Rotate a webhook endpoint's signing secret",
  description: 'The new secret replaces the old one at once for every delivery signed from then on; the answer holds it.',
  input: z.object({ id: webhookIdSchema.shape.id }),
  write: true,
  output: webhookSecretEntity,
  run: rotateWebhookSecret,
  render: (_ctx, r) => ({ secret: r.secret }),
  idOf: (r) => r.endpoint.id,
  secretFields: ['secret'],
});

export const listDeliveriesOp = defineOperation({
  name: 'webhooks.deliveries',
  summary: "List a webhook endpoint's deliveries",
  description: 'Newest first, optionally by `status`. Paged by `page_number` and `page_size` (at most 100).',
  input: listDeliveriesSchema,
  write: false,
  output: pageOf(webhookDeliveryEntity),
  run: listDeliveries,
  render: (_ctx, page) => mapPage(page, serializeDelivery),
});

export const resendEventOp = defineOperation({
  name: 'webhooks.resend',
  summary: 'Resend an event to a webhook endpoint',
  description: "The endpoint's delivery of the event becomes pending and due now with a fresh retry schedule; it is sent by the delivery worker (http) or the next pull (cli).",
  input: resendEventSchema,
  write: true,
  output: webhookDeliveryEntity,
  run: resendEvent,
  render: (_ctx, d) => serializeDelivery(d),
});

export const listPendingEventsOp = defineOperation({
  name: 'webhooks.pending_events',
  summary: 'List pending events of a CLI webhook endpoint',
  description: 'Unacknowledged events, oldest first, each with the exact body and headers an HTTP delivery would send; `limit` at most 100. Only for endpoints with `delivery_mode: cli` (400 `invalid_state` otherwise).',
  input: listPendingEventsSchema,
  write: false,
  output: webhookPendingEventListEntity,
  run: listPendingEvents,
  // Events are recorded with a type of EVENT_TYPES (recordEvent).
  render: (_ctx, r): WebhookPendingEventList => ({ items: r.items.map((e) => ({ ...e, event_type: e.event_type as EventType })) }),
});

export const acknowledgeEventOp = defineOperation({
  name: 'webhooks.ack',
  summary: 'Acknowledge a CLI webhook event',
  description: 'Reports the status your local server returned: any 2xx marks the delivery successful, anything else records a failure. Only for endpoints with `delivery_mode: cli`.',
  input: acknowledgeEventSchema,
  write: true,
  output: webhookEventAckEntity,
  run: acknowledgeEvent,
  render: (_ctx, r) => r,
});
