import { apiEnum, builder, ModeEnum } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { parseInput } from '../../lib/validation.js';
// The purchase types reference each other; the schema imports this file for all three.
import '../orders/orders.graphql.js';
import { TransactionNode } from '../transactions/transactions.graphql.js';
import { findTransactionsByIds } from '../transactions/transactions.service.js';
import { SUBSCRIPTION_STATUSES, subscriptionFilterSchema } from './subscriptions.schemas.js';
import { findSubscription, subscriptionListing } from './subscriptions.service.js';

const SubscriptionStatusEnum = apiEnum('SubscriptionStatus', SUBSCRIPTION_STATUSES);

builder.prismaNode('SubscriptionItem', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    priceId: t.exposeString('priceId'),
    units: t.exposeInt('units'),
    product: t.relation('product'),
    subscription: t.relation('subscription'),
  }),
});

export const SubscriptionNode = builder.prismaNode('Subscription', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
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
      query: { orderBy: { id: 'desc' } },
    }),
    // lastTransactionId is a plain column: a per-request loader fetches them all in one query.
    lastTransaction: t.loadable({
      type: TransactionNode,
      nullable: true,
      description: 'The last paid transaction',
      load: (ids: string[], ctx) => findTransactionsByIds(ctx.core, ids),
      sort: (tx) => tx.id,
      resolve: (s) => s.lastTransactionId,
    }),
  }),
});

listQuery('subscriptions', {
  type: 'Subscription',
  description: "The store's subscriptions in this environment, newest first",
  args: (arg) => ({ customerId: arg.id(), productId: arg.id(), status: arg({ type: SubscriptionStatusEnum }) }),
  listing: (ctx, args) => subscriptionListing(ctx, parseInput(subscriptionFilterSchema, toApiInput(args))),
});

lookupQuery('subscription', { type: 'Subscription', what: 'A subscription by id (sub_…)', find: findSubscription });

builder.prismaObjectFields('Customer', (t) => ({
  subscriptions: t.relatedConnection('subscriptions', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's subscriptions, newest first",
    query: { orderBy: { id: 'desc' } },
  }),
}));
