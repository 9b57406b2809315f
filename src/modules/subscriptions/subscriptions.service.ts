import type { Prisma as P } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { findCustomer } from '../customers/customers.service.js';
import { SUBSCRIPTION_INCLUDE } from './subscriptions.serializer.js';
import {
  listCustomerSubscriptionsSchema,
  retrieveSubscriptionSchema,
  searchSubscriptionsSchema,
  type SubscriptionFilter,
} from './subscriptions.schemas.js';

/** Ids are time-sortable, so this is newest first. */
export const SUBSCRIPTIONS_NEWEST_FIRST = { id: 'desc' } as const satisfies P.SubscriptionOrderByWithRelationInput;

export function subscriptionListFilter(ctx: RequestContext, f: SubscriptionFilter = {}): P.SubscriptionWhereInput {
  return {
    ...scope(ctx),
    ...(f.customer_id ? { customerId: f.customer_id } : {}),
    ...(f.product_id ? { productId: f.product_id } : {}),
    ...(f.status ? { status: f.status } : {}),
  };
}

export async function findSubscription<Q extends { include?: P.SubscriptionInclude; select?: P.SubscriptionSelect }>(
  ctx: RequestContext,
  id: string,
  query?: Q,
) {
  const row = await ctx.db.subscription.findFirst({ ...(query ?? {}), where: { id, ...scope(ctx) } });
  if (!row) throw notFound('Subscription', id);
  return row;
}

/** A subscription with what its /v1 shape embeds. */
export async function retrieveSubscription(ctx: RequestContext, raw: unknown) {
  const input = parseInput(retrieveSubscriptionSchema, raw);
  const row = await ctx.db.subscription.findFirst({ where: { id: input.subscription_id, ...scope(ctx) }, include: SUBSCRIPTION_INCLUDE });
  if (!row) throw notFound('Subscription', input.subscription_id);
  return row;
}

/** One page with its relations: a fixed number of queries whatever the page size. */
async function subscriptionPage(ctx: RequestContext, where: P.SubscriptionWhereInput, page: { page_number: number; page_size: number }) {
  const [items, total] = await Promise.all([
    ctx.db.subscription.findMany({ where, include: SUBSCRIPTION_INCLUDE, orderBy: SUBSCRIPTIONS_NEWEST_FIRST, ...pageWindow(page) }),
    ctx.db.subscription.count({ where }),
  ]);
  return toPage(items, total, page);
}

export async function searchSubscriptions(ctx: RequestContext, raw: unknown) {
  const input = parseInput(searchSubscriptionsSchema, raw);
  return subscriptionPage(ctx, subscriptionListFilter(ctx, input), input);
}

/** A customer's subscriptions, newest first; a customer of another store or environment is not found. */
export async function listCustomerSubscriptions(ctx: RequestContext, customerId: string, raw: unknown) {
  const input = parseInput(listCustomerSubscriptionsSchema, raw);
  const customer = await findCustomer(ctx, customerId, { select: { id: true } });
  return subscriptionPage(ctx, subscriptionListFilter(ctx, { customer_id: customer.id }), input);
}
