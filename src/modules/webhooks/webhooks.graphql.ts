import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType, type Payload } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
import { EVENT_TYPES } from '../events/events.service.js';
import { createWebhookOp, deleteWebhookOp, resendEventOp, rotateWebhookSecretOp, updateWebhookOp } from './webhooks.operations.js';
import { DELIVERY_MODES, DELIVERY_STATUSES, eventFilterSchema, WEBHOOK_STATUSES } from './webhooks.schemas.js';
import { eventListing, findWebhook, webhookListing } from './webhooks.service.js';

const WebhookDeliveryModeEnum = apiEnum('WebhookDeliveryMode', DELIVERY_MODES, 'How events reach an endpoint', {
  http: 'The service POSTs each event to the endpoint’s url, retrying on failure',
  cli: 'Nothing is POSTed: events wait until pulled (the CLI’s listen forwards them to a local server)',
});
const WebhookStatusEnum = apiEnum('WebhookStatus', WEBHOOK_STATUSES, 'Whether an endpoint receives events', {
  disabled: 'Receives no deliveries for events that happen while disabled',
});
const WebhookDeliveryStatusEnum = apiEnum('WebhookDeliveryStatus', DELIVERY_STATUSES, 'Where a delivery stands', {
  pending: 'Not delivered yet: the next attempt is due at nextAttemptAt (or the next pull, cli endpoints)',
  succeeded: 'The endpoint answered 200',
  failed: 'Every retry failed, or the endpoint was deleted; resendWebhookEvent makes it pending again',
});
export const EventTypeEnum = apiEnum('EventType', EVENT_TYPES, 'Event types; `subscription_paid` is the /v1 `subscription.paid`', {
  'subscription.paid': 'Money was collected for a subscription (purchase, renewal, proration)',
  'subscription.past_due': 'A renewal was declined; retries follow',
  'subscription.expired': 'A period ended without payment (sent with subscription.past_due)',
  'subscription.unpaid': 'The dunning retries were spent',
  'subscription.update': 'Units or product changed',
  'dispute.created': 'A buyer disputed a payment (chargeback)',
  'customer_credits.exhausted': 'A debit left a credit account at zero',
  'credits.granted': 'Credits came into a customer account',
  'credits.consumed': 'Credits left a customer account (a debit, usage settled from credits)',
  'credits.auto_recharged': 'Auto-recharge bought credits with the saved card',
});

builder.prismaNode('Event', {
  id: { field: 'id', description: 'The /v1 id (evt_…)' },
  nullable: true,
  description: 'Something that happened in the store, written with the change itself and delivered to the subscribed webhook endpoints',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    type: t.field({ type: EventTypeEnum, description: 'What happened', resolve: (e) => e.type as (typeof EVENT_TYPES)[number] }),
    payload: t.expose('payload', { type: 'JSON', description: 'The resource as the REST API rendered it when the event happened' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it happened' }),
  }),
});

builder.prismaObject('DeliveryAttempt', {
  description: 'One try at delivering an event to an endpoint, and what the endpoint answered',
  fields: (t) => ({
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime', description: 'When it was tried' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: 'HTTP status answered; null when no answer (timeout, refused)' }),
    durationMs: t.exposeInt('durationMs', { description: 'How long the attempt took, in milliseconds' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed (timeout, refused connection, an answer other than 200); null when it succeeded' }),
    responseExcerpt: t.exposeString('responseExcerpt', { nullable: true, description: 'The first bytes of the endpoint’s answer, for debugging; null when none' }),
    source: t.exposeString('source', { description: 'http (worker) | ack (pull mode) | manual' }),
  }),
});

builder.prismaNode('WebhookDelivery', {
  id: { field: 'id', description: 'The /v1 id (dlv_…)' },
  nullable: true,
  description: 'One event on its way to one endpoint, with every attempt',
  fields: (t) => ({
    status: t.field({ type: WebhookDeliveryStatusEnum, description: 'Pending, succeeded or failed', resolve: (d) => d.status as (typeof DELIVERY_STATUSES)[number] }),
    attemptCount: t.exposeInt('attemptCount', { description: 'Attempts in the current schedule (a manual resend starts a new one)' }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due, by the store’s clock; null unless pending',
      select: { status: true, nextAttemptAt: true },
      resolve: (d) => (d.status === 'pending' ? d.nextAttemptAt : null),
    }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it succeeded or failed for good; null while pending' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the event was queued for the endpoint' }),
    event: t.relation('event', { description: 'The event delivered' }),
    attempts: t.relation('attempts', { description: 'Every attempt, oldest first', query: { orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] } }),
  }),
});

builder.prismaNode('WebhookEndpoint', {
  id: { field: 'id', description: 'The /v1 id (wh_…)' },
  nullable: true,
  findUnique: (id) => ({ id, deletedAt: null }),
  description: 'A webhook endpoint; its signing secret is only returned by createWebhookEndpoint and rotateWebhookSecret',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { nullable: true, description: 'Your label for it; null when none' }),
    url: t.exposeString('url', { description: 'Empty for a cli endpoint created without one' }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, description: 'POSTed to url (http) or pulled (cli)', resolve: (w) => w.deliveryMode as (typeof DELIVERY_MODES)[number] }),
    status: t.field({ type: WebhookStatusEnum, description: 'Disabled endpoints receive nothing', select: { enabled: true }, resolve: (w) => (w.enabled ? 'enabled' : 'disabled') }),
    events: t.field({ type: [EventTypeEnum], description: 'The event types it receives', resolve: (w) => w.events as (typeof EVENT_TYPES)[number][] }),
    deleted: t.boolean({ description: 'True in the deleteWebhookEndpoint payload; a deleted endpoint is otherwise gone from the API', select: { deletedAt: true }, resolve: (w) => w.deletedAt !== null }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the endpoint was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the endpoint last changed' }),
    deliveries: t.relatedConnection('deliveries', {
      cursor: 'id',
      totalCount: true,
      description: "This endpoint's deliveries, newest first",
      args: { status: t.arg({ type: WebhookDeliveryStatusEnum, required: false, description: 'Only deliveries of this status' }) },
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
  description: 'A new webhook endpoint',
  fields: (t) => ({
    url: t.string({ description: 'Required for http delivery; production endpoints must resolve to public addresses' }),
    name: t.string({ description: 'Your label for it, up to 200 characters' }),
    events: t.field({ type: [EventTypeEnum], description: 'Omitted: every type' }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, description: 'Default http' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'The endpoint’s fields to change; those not given keep their values',
  fields: (t) => ({
    id: t.id({ required: true, description: 'The endpoint (wh_…)' }),
    url: t.string({ description: 'A new URL; production endpoints must resolve to public addresses' }),
    name: t.string({ description: 'Your label for it, up to 200 characters' }),
    status: t.field({ type: WebhookStatusEnum, description: 'disabled stops deliveries, enabled resumes them' }),
    events: t.field({ type: [EventTypeEnum], description: 'The event types it receives (at least one): replaces the list' }),
  }),
});

const WebhookEndpointIdInput = (name: string) => builder.inputType(name, { description: 'The endpoint to act on', fields: (t) => ({ id: t.id({ required: true, description: 'The endpoint (wh_…)' }) }) });

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
  input: builder.inputType('ResendWebhookEventInput', {
    description: 'The endpoint and the event to deliver to it again',
    fields: (t) => ({ endpointId: t.id({ required: true, description: 'The endpoint (wh_…)' }), eventId: t.id({ required: true, description: 'An event the endpoint was sent (evt_…)' }) }),
  }),
  payload: payloadType('ResendWebhookEventPayload', 'delivery', 'WebhookDelivery', "The endpoint's delivery of the event, pending again"),
  description: "Makes the endpoint's delivery of the event pending and due now; the worker or the next pull delivers it",
  toInput: ({ endpointId, eventId }) => ({ id: endpointId, event_id: eventId }),
  fieldNames: { id: 'endpointId', event_id: 'eventId' },
});
