import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf } from '../../graphql/input.js';
import { scope, type RequestContext } from '../../context.js';
import { parseInput } from '../../lib/validation.js';
// The purchase types reference each other; the schema imports this file for all three.
import '../orders/orders.graphql.js';
import { TransactionNode } from '../transactions/transactions.graphql.js';
import { TRANSACTIONS_NEWEST_FIRST } from '../transactions/transactions.service.js';
import { searchSubscriptionsSchema, SUBSCRIPTION_STATUSES } from './subscriptions.schemas.js';
import { findSubscription, subscriptionListFilter, SUBSCRIPTIONS_NEWEST_FIRST } from './subscriptions.service.js';

const SubscriptionStatusEnum = builder.enumType('SubscriptionStatus', { values: SUBSCRIPTION_STATUSES });

builder.prismaNode('SubscriptionItem', {
  id: { field: 'id' },
  // Items carry no store id; they are reachable only through a subscription of the caller's store.
  findUnique: (id, ctx) => ({ id, mode: ctx.core.mode, subscription: { storeId: ctx.core.storeId } }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    priceId: t.exposeString('priceId'),
    units: t.exposeInt('units'),
    product: t.relation('product'),
    subscription: t.relation('subscription'),
  }),
});

builder.prismaNode('Subscription', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    status: t.expose('status', { type: SubscriptionStatusEnum }),
    collectionMethod: t.exposeString('collectionMethod', { description: 'charge_automatically' }),
    lastTransactionId: t.exposeString('lastTransactionId', { nullable: true }),
    lastTransactionDate: t.expose('lastTransactionDate', { type: 'DateTime', nullable: true }),
    nextTransactionDate: t.expose('nextTransactionDate', { type: 'DateTime', nullable: true }),
    currentPeriodStartDate: t.expose('currentPeriodStartDate', { type: 'DateTime', nullable: true }),
    currentPeriodEndDate: t.expose('currentPeriodEndDate', { type: 'DateTime', nullable: true }),
    trialEndDate: t.expose('trialEndDate', { type: 'DateTime', nullable: true }),
    canceledAt: t.expose('canceledAt', { type: 'DateTime', nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    product: t.relation('product'),
    customer: t.relation('customer'),
    discount: t.relation('discount', { nullable: true }),
    items: t.relation('items', { query: { orderBy: { id: 'asc' } } }),
    transactions: t.relatedConnection('transactions', {
      cursor: 'id',
      totalCount: true,
      description: 'Charges of this subscription, newest first, declined attempts included',
      query: { orderBy: TRANSACTIONS_NEWEST_FIRST },
    }),
    // lastTransactionId is a plain column: a per-request loader fetches them all in one query.
    lastTransaction: t.loadable({
      type: TransactionNode,
      nullable: true,
      description: 'The last paid transaction',
      load: (ids: string[], ctx) => ctx.core.db.transaction.findMany({ where: { id: { in: ids }, ...scope(ctx.core) } }),
      sort: (tx) => tx.id,
      resolve: (s) => s.lastTransactionId,
    }),
  }),
});

type FilterArgs = { customerId?: string | number | null; productId?: string | number | null; status?: string | null };

function subscriptionsWhere(ctx: RequestContext, args: FilterArgs) {
  const id = (v: string | number | null | undefined, type: string) => (v == null ? undefined : apiIdOf(String(v), type));
  const input = parseInput(searchSubscriptionsSchema.pick({ customer_id: true, product_id: true, status: true }), {
    customer_id: id(args.customerId, 'Customer'),
    product_id: id(args.productId, 'Product'),
    status: args.status ?? undefined,
  });
  return subscriptionListFilter(ctx, input);
}

builder.queryFields((t) => ({
  subscription: t.prismaField({
    type: 'Subscription',
    description: 'A subscription by its /v1 id (sub_…) or global id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _p, args, ctx) => findSubscription(ctx.core, apiIdOf(String(args.id), 'Subscription'), query),
  }),
  subscriptions: t.prismaConnection({
    type: 'Subscription',
    cursor: 'id',
    description: 'Subscriptions of this store and environment, newest first',
    args: { customerId: t.arg.id(), productId: t.arg.id(), status: t.arg({ type: SubscriptionStatusEnum }) },
    totalCount: (_p, args, ctx) => ctx.core.db.subscription.count({ where: subscriptionsWhere(ctx.core, args) }),
    resolve: (query, _p, args, ctx) =>
      ctx.core.db.subscription.findMany({ ...query, where: subscriptionsWhere(ctx.core, args), orderBy: SUBSCRIPTIONS_NEWEST_FIRST }),
  }),
}));

builder.prismaObjectFields('Customer', (t) => ({
  subscriptions: t.relatedConnection('subscriptions', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's subscriptions, newest first",
    query: { orderBy: SUBSCRIPTIONS_NEWEST_FIRST },
  }),
}));
