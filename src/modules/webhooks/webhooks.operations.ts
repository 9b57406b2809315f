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
  input: createWebhookSchema,
  write: true,
  prepare: (ctx, input) => checkEndpointUrl(ctx, input.delivery_mode, input.url),
  output: webhookEntity,
  run: createWebhook,
  render: (_ctx, r) => serializeWebhook(r.endpoint, r.secret),
  idOf: (r) => r.endpoint.id,
  secretFields: ['secret'],
});

export const getWebhookOp = defineOperation({ name: 'webhooks.get', input: webhookIdSchema, write: false, output: webhookEntity, run: findWebhookOrThrow, render });

export const listWebhooksOp = defineOperation({
  name: 'webhooks.list',
  input: listWebhooksSchema,
  write: false,
  output: webhookList,
  run: listWebhooks,
  render: (_ctx, page) => mapPage(page, (w) => serializeWebhook(w)),
});

export const updateWebhookOp = defineOperation({
  name: 'webhooks.update',
  input: updateWebhookSchema,
  write: true,
  prepare: checkUpdatedUrl,
  output: webhookEntity,
  run: updateWebhook,
  render,
});

export const deleteWebhookOp = defineOperation({ name: 'webhooks.delete', input: webhookIdSchema, write: true, output: webhookEntity, run: deleteWebhook, render });

export const getWebhookSecretOp = defineOperation({
  name: 'webhooks.secret',
  input: webhookIdSchema,
  write: false,
  output: webhookSecretEntity,
  run: getWebhookSecret,
  render: (_ctx, r) => r,
  secretFields: ['secret'],
});

export const rotateWebhookSecretOp = defineOperation({
  name: 'webhooks.rotate_secret',
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
  input: listDeliveriesSchema,
  write: false,
  output: pageOf(webhookDeliveryEntity),
  run: listDeliveries,
  render: (_ctx, page) => mapPage(page, serializeDelivery),
});

export const resendEventOp = defineOperation({
  name: 'webhooks.resend',
  input: resendEventSchema,
  write: true,
  output: webhookDeliveryEntity,
  run: resendEvent,
  render: (_ctx, d) => serializeDelivery(d),
});

export const listPendingEventsOp = defineOperation({
  name: 'webhooks.pending_events',
  input: listPendingEventsSchema,
  write: false,
  output: webhookPendingEventListEntity,
  run: listPendingEvents,
  // Events are recorded with a type of EVENT_TYPES (recordEvent).
  render: (_ctx, r): WebhookPendingEventList => ({ items: r.items.map((e) => ({ ...e, event_type: e.event_type as EventType })) }),
});

export const acknowledgeEventOp = defineOperation({
  name: 'webhooks.ack',
  input: acknowledgeEventSchema,
  write: true,
  output: webhookEventAckEntity,
  run: acknowledgeEvent,
  render: (_ctx, r) => r,
});
