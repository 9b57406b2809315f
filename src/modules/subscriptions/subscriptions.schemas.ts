import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';

const id = z.string().trim().min(1).max(100);

export const SUBSCRIPTION_STATUSES = ['active', 'canceled', 'unpaid', 'paused', 'trialing', 'scheduled_cancel', 'past_due'] as const;

export const retrieveSubscriptionSchema = z.object({ subscription_id: id });

/** The client sends only paging; the filters serve GraphQL and direct callers. */
export const searchSubscriptionsSchema = pageQuery(10).extend({
  customer_id: id.optional(),
  product_id: id.optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
});

export type SubscriptionFilter = Pick<z.infer<typeof searchSubscriptionsSchema>, 'customer_id' | 'product_id' | 'status'>;

export const listCustomerSubscriptionsSchema = pageQuery(50);
