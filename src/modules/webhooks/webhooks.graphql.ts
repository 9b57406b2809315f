import { apiEnum, builder, ModeEnum } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType, type Payload } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
import { EVENT_TYPES } from '../events/events.service.js';
import { createWebhookOp, deleteWebhookOp, resendEventOp, rotateWebhookSecretOp, updateWebhookOp } from './webhooks.operations.js';
import { DELIVERY_MODES, DELIVERY_STATUSES, eventFilterSchema, WEBHOOK_STATUSES } from './webhooks.schemas.js';
import { eventListing, findWebhook, webhookListing } from './webhooks.service.js';

const WebhookDeliveryModeEnum = apiEnum('WebhookDeliveryMode', DELIVERY_MODES);
const WebhookStatusEnum = apiEnum('WebhookStatus', WEBHOOK_STATUSES);
const WebhookDeliveryStatusEnum = apiEnum('WebhookDeliveryStatus', DELIVERY_STATUSES);
export const EventTypeEnum = apiEnum('EventType', EVENT_TYPES, 'Event types; `subscription_paid` is the /v1 `subscription.paid`');

builder.prismaNode('Event', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    type: t.field({ type: EventTypeEnum, resolve: (e) => e.type as (typeof EVENT_TYPES)[number] }),
    payload: t.expose('payload', { type: 'JSON', description: 'The resource as the REST API rendered it when the event happened' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('DeliveryAttempt', {
  fields: (t) => ({
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'HTTP status answered; null when no answer (timeout, refused)' }),
    durationMs: t.exposeInt('durationMs'),
    error: t.exposeString('error', { nullable: true }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true }),
    source: t.exposeString('source', { description: 'http (worker) | ack (pull mode) | manual' }),
  }),
});

builder.prismaNode('WebhookDelivery', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    status: t.field({ type: WebhookDeliveryStatusEnum, resolve: (d) => d.status as (typeof DELIVERY_STATUSES)[number] }),
    attemptCount: t.exposeInt('attemptCount', { description: 'Attempts in the current schedule (a manual resend starts a new one)' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      select: { status: true, nextAttemptAt: true },
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    event: t.relation('event'),
    attempts: t.relation('attempts', { query: { orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] } }),
  }),
});

builder.prismaNode('WebhookEndpoint', {
  id: { field: 'id' },
  nullable: true,
  findUnique: (id) => ({ id, deletedAt: null }),
  description: 'A webhook endpoint; its signing secret is only returned by createWebhookEndpoint and rotateWebhookSecret',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name', { nullable: true }),
    url: t.exposeString('url', { description: 'Empty for a cli endpoint created without one' }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, resolve: (w) => w.deliveryMode as (typeof DELIVERY_MODES)[number] }),
    status: t.field({ type: WebhookStatusEnum, select: { enabled: true }, resolve: (w) => (w.enabled ? 'enabled' : 'disabled') }),
    events: t.field({ type: [EventTypeEnum], resolve: (w) => w.events as (typeof EVENT_TYPES)[number][] }),
    deleted: t.boolean({ select: { deletedAt: true }, resolve: (w) => w.deletedAt !== null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.relatedConnection('deliveries', {
      cursor: 'id',
      totalCount: true,
      description: "This endpoint's deliveries, newest first",
      args: { status: t.arg({ type: WebhookDeliveryStatusEnum, required: false }) },
      query: (args) => ({ where: args.status ? { status: args.status } : {}, orderBy: { id: 'desc' } }),
    }),
  }),
});

listQuery('webhookEndpoints', {
  type: 'WebhookEndpoint',
  description: "The store's webhook endpoints in this environment, newest first",
  listing: (ctx) => webhookListing(ctx),
});

listQuery('events', {
  type: 'Event',
  description: "The store's events in this environment, newest first",
  args: (arg) => ({ type: arg({ type: EventTypeEnum, description: 'Only events of this type' }) }),
  listing: (ctx, args) => eventListing(ctx, parseInput(eventFilterSchema, toApiInput(args))),
});

lookupQuery('webhookEndpoint', { type: 'WebhookEndpoint', what: 'A webhook endpoint by id (wh_…)', find: findWebhook });

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ description: 'Required for http delivery; production endpoints must resolve to public addresses' }),
    name: t.string(),
    events: t.field({ type: [EventTypeEnum], description: 'Omitted: every type' }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, description: 'Default http' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    url: t.string(),
    name: t.string(),
    status: t.field({ type: WebhookStatusEnum }),
    events: t.field({ type: [EventTypeEnum] }),
  }),
});

const WebhookEndpointIdInput = (name: string) => builder.inputType(name, { fields: (t) => ({ id: t.id({ required: true }) }) });

/** Creation and rotation also answer the signing secret: the only places it is returned. */
const withSecret = (name: string, description: string) => {
  const payload = payloadType(name, 'endpoint', 'WebhookEndpoint', description);
  builder.objectFields(payload, (t) => ({
    secret: t.string({
      nullable: true,
      description: 'whsec_…: verifies service-signature and the Standard Webhooks signature. Null on an idempotent replay, which never stores it',
      resolve: (p: Payload) => ((p.body as { secret?: string } | null)?.secret ?? null),
    }),
  }));
  return payload;
};

operationMutation('createWebhookEndpoint', {
  op: createWebhookOp,
  input: CreateWebhookEndpointInput,
  payload: withSecret('CreateWebhookEndpointPayload', 'The endpoint created'),
  description: 'Creates an endpoint and its signing secret',
});

operationMutation('updateWebhookEndpoint', {
  op: updateWebhookOp,
  input: UpdateWebhookEndpointInput,
  payload: payloadType('UpdateWebhookEndpointPayload', 'endpoint', 'WebhookEndpoint', 'The endpoint as changed'),
  description: 'Changes the fields given',
});

operationMutation('deleteWebhookEndpoint', {
  op: deleteWebhookOp,
  input: WebhookEndpointIdInput('DeleteWebhookEndpointInput'),
  payload: payloadType('DeleteWebhookEndpointPayload', 'endpoint', 'WebhookEndpoint', 'The deleted endpoint'),
  description: 'Deletes the endpoint; its pending deliveries are marked failed',
});

operationMutation('rotateWebhookSecret', {
  op: rotateWebhookSecretOp,
  input: WebhookEndpointIdInput('RotateWebhookSecretInput'),
  payload: withSecret('RotateWebhookSecretPayload', 'The endpoint'),
  description: 'Replaces the signing secret; deliveries signed from now on use the new one',
});

operationMutation('resendWebhookEvent', {
  op: resendEventOp,
  input: builder.inputType('ResendWebhookEventInput', { fields: (t) => ({ endpointId: t.id({ required: true }), eventId: t.id({ required: true }) }) }),
  payload: payloadType('ResendWebhookEventPayload', 'delivery', 'WebhookDelivery', "The endpoint's delivery of the event, pending again"),
  description: "Makes the endpoint's delivery of the event pending and due now; the worker or the next pull delivers it",
  toInput: ({ endpointId, eventId }) => ({ id: endpointId, event_id: eventId }),
  fieldNames: { id: 'endpointId', event_id: 'eventId' },
});
