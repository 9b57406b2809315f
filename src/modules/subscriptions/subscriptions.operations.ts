import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { serializeSubscription } from './subscriptions.serializer.js';
import { listCustomerSubscriptionsSchema, searchSubscriptionsSchema, subscriptionIdSchema } from './subscriptions.schemas.js';
import { findSubscriptionOrThrow, listCustomerSubscriptions, searchSubscriptions, type SubscriptionWithRelations } from './subscriptions.service.js';

/** The subscription operations, as REST (subscriptions.routes.ts) runs them; GraphQL reads through the same service. */
const render = (ctx: { baseUrl: string }, s: SubscriptionWithRelations) => serializeSubscription(s, ctx.baseUrl);

export const getSubscriptionOp = defineOperation({
  name: 'subscriptions.get',
  input: subscriptionIdSchema,
  write: false,
  run: (ctx, input) => findSubscriptionOrThrow(ctx, { id: input.subscription_id }),
  render,
});

export const searchSubscriptionsOp = defineOperation({
  name: 'subscriptions.search',
  input: searchSubscriptionsSchema,
  write: false,
  run: searchSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});

export const listCustomerSubscriptionsOp = defineOperation({
  name: 'subscriptions.list_for_customer',
  input: listCustomerSubscriptionsSchema,
  write: false,
  run: listCustomerSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});
