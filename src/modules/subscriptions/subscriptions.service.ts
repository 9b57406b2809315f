import type { Prisma as P } from '../../generated/prisma/client.js';
import type { TransactionStatus } from '../../generated/prisma/enums.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { orNotFound } from '../../lib/errors.js';
import { listing } from '../../db/listing.js';
import { assertCustomerExists } from '../customers/customers.service.js';
import { recordEvents, type EventType } from '../events/events.service.js';
import { PRODUCT_INCLUDE } from '../products/products.service.js';
import { serializeSubscription } from './subscriptions.serializer.js';
import type { ListCustomerSubscriptionsInput, SearchSubscriptionsInput, SubscriptionFilter } from './subscriptions.schemas.js';

/**
 * Transaction statuses that mean money was collected at some point. A refund or chargeback
 * later does not make the payment stop being the subscription's last payment.
 */
export const COLLECTED_TRANSACTION_STATUSES = ['paid', 'refunded', 'partialRefund', 'chargedBack'] as const satisfies readonly TransactionStatus[];

/**
 * Relations the /v1 subscription embeds. `transactions` holds at most the newest collected
 * payment (for `last_transaction`); on a list this stays one batched query per relation.
 */
export const SUBSCRIPTION_INCLUDE = {
  product: { include: PRODUCT_INCLUDE },
  customer: true,
  items: { orderBy: { id: 'asc' } },
  discount: true,
  transactions: {
    where: { status: { in: [...COLLECTED_TRANSACTION_STATUSES] } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 1,
  },
} satisfies P.SubscriptionInclude;

export type SubscriptionWithRelations = P.SubscriptionGetPayload<{ include: typeof SUBSCRIPTION_INCLUDE }>;

type SubscriptionSelection = { include?: P.SubscriptionInclude; select?: P.SubscriptionSelect };

/** A subscription with the caller's selection (GraphQL) or the /v1 shape; null when the caller has no such subscription. */
export function findSubscription(ctx: RequestContext, input: { id: string }, selection: SubscriptionSelection = { include: SUBSCRIPTION_INCLUDE }) {
  return db(ctx).subscription.findUnique({ ...selection, where: { id: input.id } });
}

export async function findSubscriptionOrThrow(ctx: RequestContext, input: { id: string }): Promise<SubscriptionWithRelations> {
  return orNotFound(db(ctx).subscription.findUnique({ where: { id: input.id }, include: SUBSCRIPTION_INCLUDE }), 'Subscription', input.id);
}

/** The store's subscriptions, newest first (ids are time-sortable), narrowed by the filters. */
export function subscriptionListing(ctx: RequestContext, filter: SubscriptionFilter) {
  const where: P.SubscriptionWhereInput = {
    ...(filter.customer_id ? { customerId: filter.customer_id } : {}),
    ...(filter.product_id ? { productId: filter.product_id } : {}),
    ...(filter.status ? { status: filter.status } : {}),
  };
  return listing(db(ctx).subscription, where, { id: 'desc' });
}

/** One page with its relations: a fixed number of queries whatever the page size. */
export function searchSubscriptions(ctx: RequestContext, input: SearchSubscriptionsInput) {
  return subscriptionListing(ctx, input).page(input, { include: SUBSCRIPTION_INCLUDE });
}

/** A customer's subscriptions, newest first; a customer of another store or environment is a 404. */
export async function listCustomerSubscriptions(ctx: RequestContext, input: ListCustomerSubscriptionsInput) {
  await assertCustomerExists(ctx, input.id);
  return subscriptionListing(ctx, { customer_id: input.id }).page(input, { include: SUBSCRIPTION_INCLUDE });
}

/** Records `types` for the subscription as it is now (the REST rendering), in the caller's transaction. */
export async function announceSubscription(ctx: RequestContext, subscriptionId: string, types: EventType[]): Promise<SubscriptionWithRelations> {
  const [s] = await announceSubscriptions(ctx, [{ id: subscriptionId, types }]);
  return s!;
}

/** `announceSubscription` for many subscriptions, reading them in one query whatever their number. */
export async function announceSubscriptions(ctx: RequestContext, announcements: readonly { id: string; types: EventType[] }[]): Promise<SubscriptionWithRelations[]> {
  if (!announcements.length) return [];
  const found = await db(ctx).subscription.findMany({ where: { id: { in: announcements.map((a) => a.id) } }, include: SUBSCRIPTION_INCLUDE });
  const byId = new Map(found.map((s) => [s.id, s]));
  const subscriptions = announcements.map((a) => {
    const s = byId.get(a.id);
    if (!s) throw new Error(`subscription ${a.id} to announce does not exist`);
    return s;
  });
  await recordEvents(
    ctx,
    announcements.flatMap((a, i) => {
      const payload = serializeSubscription(subscriptions[i]!, ctx.baseUrl) as unknown as P.InputJsonObject;
      return a.types.map((type) => ({ type, payload }));
    }),
  );
  return subscriptions;
}
