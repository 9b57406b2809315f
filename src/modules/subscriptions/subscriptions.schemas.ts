import { z } from 'zod';
import type { SubscriptionStatus } from '../../generated/prisma/enums.js';
import { pageQuery } from '../../lib/pagination.js';
import { isoDateTime, resourceId } from '../../lib/schemas.js';

/** Input schemas of the subscription operations, in the /v1 field names (GraphQL converts to them). */

export const SUBSCRIPTION_STATUSES = [
  'active',
  'canceled',
  'unpaid',
  'paused',
  'trialing',
  'scheduled_cancel',
  'past_due',
] as const satisfies readonly SubscriptionStatus[];

/** GET /v1/subscriptions: by id; other query parameters are ignored. */
export const subscriptionIdSchema = z.object({ subscription_id: resourceId });
export type SubscriptionIdInput = z.infer<typeof subscriptionIdSchema>;

export const subscriptionFilterSchema = z.object({
  customer_id: resourceId.optional(),
  product_id: resourceId.optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
});
export type SubscriptionFilter = z.infer<typeof subscriptionFilterSchema>;

/** The client sends only paging; the filters serve GraphQL and direct callers. */
export const searchSubscriptionsSchema = pageQuery(10).extend(subscriptionFilterSchema.shape);
export type SearchSubscriptionsInput = z.infer<typeof searchSubscriptionsSchema>;

/** GET /v1/customers/{id}/subscriptions: the customer (path) and paging. */
export const listCustomerSubscriptionsSchema = pageQuery(50).extend({ id: resourceId });
export type ListCustomerSubscriptionsInput = z.infer<typeof listCustomerSubscriptionsSchema>;

export const CANCEL_MODES = ['immediate', 'scheduled'] as const;
export const SCHEDULED_ACTIONS = ['cancel', 'pause'] as const;

/**
 * POST /v1/subscriptions/{id}/cancel. The client's fields: `mode` (default immediate) and, for a
 * scheduled one, `onExecute` (camelCase on the wire; default cancel).
 */
export const cancelSubscriptionSchema = z.object({
  id: resourceId,
  mode: z.enum(CANCEL_MODES).default('immediate'),
  onExecute: z.enum(SCHEDULED_ACTIONS).default('cancel'),
});
export type CancelSubscriptionInput = z.output<typeof cancelSubscriptionSchema>;

/** POST /v1/subscriptions/{id}/pause and /resume: the id (path); the client sends no body. */
export const subscriptionPathSchema = z.object({ id: resourceId });
export type SubscriptionPathInput = z.output<typeof subscriptionPathSchema>;

export const UPDATE_BEHAVIORS = ['proration-charge-immediately', 'proration-charge', 'proration-none'] as const;
export type UpdateBehavior = (typeof UPDATE_BEHAVIORS)[number];

/** The instant a change is priced at (this service's extension, as Stripe's): a preview and the change that follows agree to the unit. */
const prorationDate = isoDateTime.optional();
const units = z.number().int('must be a whole number').min(1, 'must be at least 1').max(100_000);

/** POST /v1/subscriptions/{id}: the item's units (one item per subscription); default proration-charge. */
export const updateSubscriptionSchema = z.object({
  id: resourceId,
  items: z
    .array(z.object({ id: z.string().max(100).optional(), product_id: resourceId.optional(), price_id: z.string().max(100).optional(), units }))
    .min(1, 'send the item to change')
    .max(1, 'a subscription has one item'),
  update_behavior: z.enum(UPDATE_BEHAVIORS).default('proration-charge'),
  proration_date: prorationDate,
});
export type UpdateSubscriptionInput = z.output<typeof updateSubscriptionSchema>;

/** POST /v1/subscriptions/{id}/upgrade: another product; default proration-charge-immediately. */
export const upgradeSubscriptionSchema = z.object({
  id: resourceId,
  product_id: resourceId,
  update_behavior: z.enum(UPDATE_BEHAVIORS).default('proration-charge-immediately'),
  proration_date: prorationDate,
});
export type UpgradeSubscriptionInput = z.output<typeof upgradeSubscriptionSchema>;

/** POST /v1/subscriptions/{id}/upgrade/preview: what an upgrade (or a change of units) would charge. */
export const previewChangeSchema = z
  .object({
    id: resourceId,
    product_id: resourceId.optional(),
    units: units.optional(),
    update_behavior: z.enum(UPDATE_BEHAVIORS).default('proration-charge-immediately'),
    proration_date: prorationDate,
  })
  .refine((v) => v.product_id !== undefined || v.units !== undefined, { message: 'send product_id or units', path: ['product_id'] });
export type PreviewChangeInput = z.output<typeof previewChangeSchema>;
