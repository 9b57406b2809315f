import type { WebhookEndpoint } from '../../generated/prisma/client.js';
import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf, toApiInput } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { EVENT_TYPES } from '../events/events.service.js';
import { DELIVERY_MODES, DELIVERY_STATUSES, WEBHOOK_STATUSES } from './webhooks.schemas.js';
import {
  createWebhook,
  deleteWebhook,
  findWebhook,
  resendEvent,
  rotateWebhookSecret,
  updateWebhook,
  webhookListFilter,
} from './webhooks.service.js';

const WebhookDeliveryModeEnum = builder.enumType('WebhookDeliveryMode', { values: DELIVERY_MODES });
const WebhookStatusEnum = builder.enumType('WebhookStatus', { values: WEBHOOK_STATUSES });
const WebhookDeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', { values: DELIVERY_STATUSES });
// Event type names contain '.', which GraphQL enum values cannot: strings checked by the shared schema.
const eventTypesDescription = `Event types, each one of: ${EVENT_TYPES.join(', ')}`;

const NEWEST_FIRST = { id: 'desc' } as const;

export const EventNode = builder.prismaNode('Event', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The event id (evt_…), as in the delivery body and webhook-id header' }),
    mode: t.expose('mode', { type: ModeEnum }),
    type: t.exposeString('type'),
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

export const WebhookDeliveryNode = builder.prismaNode('WebhookDelivery', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, endpoint: { ...scope(ctx.core) } }),
  fields: (t) => ({
    apiId: t.exposeString('id'),
    status: t.field({ type: WebhookDeliveryStatusEnum, select: { status: true }, resolve: (d) => d.status as (typeof DELIVERY_STATUSES)[number] }),
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

export const WebhookEndpointNode = builder.prismaNode('WebhookEndpoint', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core), deletedAt: null }),
  description: 'A webhook endpoint; its signing secret is only returned by createWebhookEndpoint and rotateWebhookSecret',
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name', { nullable: true }),
    url: t.exposeString('url', { description: 'Empty for a cli endpoint created without one' }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, select: { deliveryMode: true }, resolve: (w) => w.deliveryMode as 'http' | 'cli' }),
    status: t.field({ type: WebhookStatusEnum, select: { enabled: true }, resolve: (w) => (w.enabled ? 'enabled' : 'disabled') }),
    events: t.exposeStringList('events'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deliveries: t.relatedConnection('deliveries', {
      cursor: 'id',
      totalCount: true,
      description: "This endpoint's deliveries, newest first",
      args: { status: t.arg({ type: WebhookDeliveryStatusEnum, required: false }) },
      query: (args) => ({ where: args.status ? { status: args.status } : {}, orderBy: NEWEST_FIRST }),
    }),
  }),
});

const WebhookSecretPayload = builder.objectRef<{ endpoint: WebhookEndpoint; secret: string }>('WebhookSecretPayload').implement({
  description: 'An endpoint with its signing secret; the only places the secret is returned',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointNode, resolve: (p) => p.endpoint }),
    secret: t.exposeString('secret', { description: 'whsec_…: verifies service-signature and the Standard Webhooks signature' }),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.prismaConnection({
    type: 'WebhookEndpoint',
    cursor: 'id',
    description: "The store's webhook endpoints in this environment, newest first",
    totalCount: (_p, _a, ctx) => ctx.core.db.webhookEndpoint.count({ where: webhookListFilter(ctx.core) }),
    resolve: (query, _p, _a, ctx) => ctx.core.db.webhookEndpoint.findMany({ ...query, where: webhookListFilter(ctx.core), orderBy: NEWEST_FIRST }),
  }),
  webhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    description: 'A webhook endpoint by its /v1 id (wh_…) or global id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _p, args, ctx) => findWebhook(ctx.core, apiIdOf(String(args.id), 'WebhookEndpoint'), query),
  }),
  events: t.prismaConnection({
    type: 'Event',
    cursor: 'id',
    description: "The store's events in this environment, newest first",
    args: { type: t.arg.string({ required: false, description: 'Only events of this type' }) },
    totalCount: (_p, args, ctx) => ctx.core.db.event.count({ where: { ...scope(ctx.core), ...(args.type ? { type: args.type } : {}) } }),
    resolve: (query, _p, args, ctx) =>
      ctx.core.db.event.findMany({ ...query, where: { ...scope(ctx.core), ...(args.type ? { type: args.type } : {}) }, orderBy: NEWEST_FIRST }),
  }),
}));

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string({ description: 'Required for http delivery; production endpoints must resolve to public addresses' }),
    name: t.string(),
    events: t.stringList({ description: `${eventTypesDescription}. Omitted = every type` }),
    deliveryMode: t.field({ type: WebhookDeliveryModeEnum, description: 'Default http' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    name: t.string({ description: 'null clears it' }),
    status: t.field({ type: WebhookStatusEnum }),
    events: t.stringList({ description: eventTypesDescription }),
  }),
});

const endpointId = (id: string | number) => apiIdOf(String(id), 'WebhookEndpoint');

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookSecretPayload,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }) },
    resolve: (_p, args, ctx) => createWebhook(ctx.core, toApiInput(args.input)),
  }),
  updateWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const updated = await updateWebhook(ctx.core, endpointId(args.id), toApiInput(args.input));
      return findWebhook(ctx.core, updated.id, query);
    },
  }),
  deleteWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    description: 'Deletes the endpoint; its pending deliveries are marked failed',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const deleted = await deleteWebhook(ctx.core, endpointId(args.id));
      return ctx.core.db.webhookEndpoint.findUniqueOrThrow({ ...query, where: { id: deleted.id } });
    },
  }),
  rotateWebhookSecret: t.field({
    type: WebhookSecretPayload,
    description: 'Replaces the signing secret; deliveries signed from now on use the new one',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_p, args, ctx) => rotateWebhookSecret(ctx.core, endpointId(args.id)),
  }),
  resendWebhookEvent: t.prismaField({
    type: 'WebhookDelivery',
    description: "Makes the endpoint's delivery of the event pending and due now; the worker or the next pull delivers it",
    args: { endpointId: t.arg.id({ required: true }), eventId: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const delivery = await resendEvent(ctx.core, { id: endpointId(args.endpointId), event_id: apiIdOf(String(args.eventId), 'Event') });
      return ctx.core.db.webhookDelivery.findUniqueOrThrow({ ...query, where: { id: delivery.id } });
    },
  }),
}));
