import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { serializeChangePreview, serializeSubscription, subscriptionChangePreview, subscriptionEntity, subscriptionList } from './subscriptions.serializer.js';
import {
  cancelSubscriptionSchema,
  listCustomerSubscriptionsSchema,
  previewChangeSchema,
  searchSubscriptionsSchema,
  subscriptionIdSchema,
  subscriptionPathSchema,
  updateSubscriptionSchema,
  upgradeSubscriptionSchema,
} from './subscriptions.schemas.js';
import { previewChange, updateSubscription, upgradeSubscription } from './subscription-changes.js';
import { cancelSubscription, pauseSubscription, resumeSubscription } from './subscription-lifecycle.js';
import { findSubscriptionOrThrow, listCustomerSubscriptions, searchSubscriptions, type SubscriptionWithRelations } from './subscriptions.service.js';

/** The subscription operations, as REST (subscriptions.routes.ts) runs them; GraphQL reads through the same service. */
const render = (ctx: { baseUrl: string }, s: SubscriptionWithRelations) => serializeSubscription(s, ctx.baseUrl);

export const getSubscriptionOp = defineOperation({
  name: 'subscriptions.get',
  input: subscriptionIdSchema,
  write: false,
  output: subscriptionEntity,
  run: (ctx, input) => findSubscriptionOrThrow(ctx, { id: input.subscription_id }),
  render,
});

export const searchSubscriptionsOp = defineOperation({
  name: 'subscriptions.search',
  input: searchSubscriptionsSchema,
  write: false,
  output: subscriptionList,
  run: searchSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});

export const listCustomerSubscriptionsOp = defineOperation({
  name: 'subscriptions.list_for_customer',
  input: listCustomerSubscriptionsSchema,
  write: false,
  output: subscriptionList,
  run: listCustomerSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});

export const cancelSubscriptionOp = defineOperation({
  name: 'subscriptions.cancel',
  input: cancelSubscriptionSchema,
  write: true,
  output: subscriptionEntity,
  run: cancelSubscription,
  render,
});

export const pauseSubscriptionOp = defineOperation({
  name: 'subscriptions.pause',
  input: subscriptionPathSchema,
  write: true,
  output: subscriptionEntity,
  run: pauseSubscription,
  render,
});

export const resumeSubscriptionOp = defineOperation({
  name: 'subscriptions.resume',
  input: subscriptionPathSchema,
  write: true,
  output: subscriptionEntity,
  run: resumeSubscription,
  render,
});

/**
 * Changes are not one transaction when they charge now (see subscription-changes.ts): with an
 * Idempotency-Key, a retry gets the first answer instead of being refused as changing nothing.
 */
export const updateSubscriptionOp = defineOperation({
  name: 'subscriptions.update',
  input: updateSubscriptionSchema,
  write: 'steps',
  output: subscriptionEntity,
  run: updateSubscription,
  render,
});

export const upgradeSubscriptionOp = defineOperation({
  name: 'subscriptions.upgrade',
  input: upgradeSubscriptionSchema,
  write: 'steps',
  output: subscriptionEntity,
  run: upgradeSubscription,
  render,
});

export const previewChangeOp = defineOperation({
  name: 'subscriptions.preview_change',
  input: previewChangeSchema,
  write: false,
  output: subscriptionChangePreview,
  run: async (ctx, input) => ({ id: input.id, plan: await previewChange(ctx, input) }),
  render: (_ctx, out) => serializeChangePreview(out.id, out.plan),
});
