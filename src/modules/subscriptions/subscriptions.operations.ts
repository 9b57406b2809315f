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
  summary: 'Retrieve a subscription',
  description: 'By `subscription_id`.',
  input: subscriptionIdSchema,
  write: false,
  output: subscriptionEntity,
  run: (ctx, input) => findSubscriptionOrThrow(ctx, { id: input.subscription_id }),
  render,
});

export const searchSubscriptionsOp = defineOperation({
  name: 'subscriptions.search',
  summary: 'List subscriptions',
  description: 'Filter by customer, product and status. Paged by `page_number` and `page_size` (at most 100).',
  input: searchSubscriptionsSchema,
  write: false,
  output: subscriptionList,
  run: searchSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});

export const listCustomerSubscriptionsOp = defineOperation({
  name: 'subscriptions.list_for_customer',
  summary: "List a customer's subscriptions",
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: listCustomerSubscriptionsSchema,
  write: false,
  output: subscriptionList,
  run: listCustomerSubscriptions,
  render: (ctx, page) => mapPage(page, (s) => render(ctx, s)),
});

export const cancelSubscriptionOp = defineOperation({
  name: 'subscriptions.cancel',
  summary: 'Cancel a subscription',
  description: "`mode: immediate` (the default) ends it now; `mode: scheduled` ends it at the period's end, or pauses it with `onExecute: pause`. A subscription whose status does not allow it is refused (400 `invalid_state`).",
  input: cancelSubscriptionSchema,
  write: true,
  output: subscriptionEntity,
  run: cancelSubscription,
  render,
});

export const pauseSubscriptionOp = defineOperation({
  name: 'subscriptions.pause',
  summary: 'Pause a subscription',
  description: 'No charges while paused; resuming starts a new period. A subscription whose status does not allow it is refused (400 `invalid_state`).',
  input: subscriptionPathSchema,
  write: true,
  output: subscriptionEntity,
  run: pauseSubscription,
  render,
});

export const resumeSubscriptionOp = defineOperation({
  name: 'subscriptions.resume',
  summary: 'Resume a subscription',
  description: 'A paused subscription starts a new period, charged now; a scheduled cancellation or pause is withdrawn and the current period kept. Other statuses are refused (400 `invalid_state`).',
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
  summary: "Change a subscription's units",
  description: "Sets the item's `units`, prorated by `update_behavior` (default `proration-charge`). With an Idempotency-Key a retry gets the first answer instead of charging again.",
  input: updateSubscriptionSchema,
  write: 'steps',
  output: subscriptionEntity,
  run: updateSubscription,
  render,
});

export const upgradeSubscriptionOp = defineOperation({
  name: 'subscriptions.upgrade',
  summary: 'Change a subscription to another product',
  description: 'Prorated by `update_behavior` (default `proration-charge-immediately`). With an Idempotency-Key a retry gets the first answer instead of charging again.',
  input: upgradeSubscriptionSchema,
  write: 'steps',
  output: subscriptionEntity,
  run: upgradeSubscription,
  render,
});

export const previewChangeOp = defineOperation({
  name: 'subscriptions.preview_change',
  summary: 'Preview a subscription change',
  description: 'What an update or upgrade would charge, priced at `proration_date` (default now) so that the change that follows agrees; nothing is written.',
  input: previewChangeSchema,
  write: false,
  output: subscriptionChangePreview,
  run: async (ctx, input) => ({ id: input.id, plan: await previewChange(ctx, input) }),
  render: (_ctx, out) => serializeChangePreview(out.id, out.plan),
});
