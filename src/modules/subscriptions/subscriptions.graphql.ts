import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { execute } from '../../core/operation.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
// The purchase types reference each other; the schema imports this file for all three.
import '../orders/orders.graphql.js';
import { TransactionNode } from '../transactions/transactions.graphql.js';
import { findTransactionsByIds } from '../transactions/transactions.service.js';
import { CANCEL_MODES, SCHEDULED_ACTIONS, SUBSCRIPTION_STATUSES, subscriptionFilterSchema, UPDATE_BEHAVIORS } from './subscriptions.schemas.js';
import type { serializeChangePreview } from './subscriptions.serializer.js';
import { cancelSubscriptionOp, pauseSubscriptionOp, previewChangeOp, resumeSubscriptionOp, updateSubscriptionOp, upgradeSubscriptionOp } from './subscriptions.operations.js';
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

const CancelModeEnum = apiEnum('SubscriptionCancelMode', CANCEL_MODES, 'immediate: canceled now; scheduled: at the end of the current period');
const ScheduledActionEnum = apiEnum('SubscriptionScheduledAction', SCHEDULED_ACTIONS, 'What a scheduled cancellation does at the period end');

const SubscriptionIdInput = (name: string) => builder.inputType(name, { fields: (t) => ({ id: t.id({ required: true, description: 'sub_…' }) }) });

operationMutation('cancelSubscription', {
  op: cancelSubscriptionOp,
  input: builder.inputType('CancelSubscriptionInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      mode: t.field({ type: CancelModeEnum, required: false, description: 'Default immediate' }),
      onExecute: t.field({ type: ScheduledActionEnum, required: false, description: 'For a scheduled cancellation; default cancel' }),
    }),
  }),
  // The /v1 body names this field `onExecute`, as the official client sends it.
  toInput: (i) => ({ id: i.id, ...(i.mode ? { mode: i.mode } : {}), ...(i.onExecute ? { onExecute: i.onExecute } : {}) }),
  payload: payloadType('CancelSubscriptionPayload', 'subscription', 'Subscription', 'The subscription, canceled or scheduled to end'),
  description: 'Cancels a subscription now, or at the end of its period (then cancels or pauses it)',
});

operationMutation('pauseSubscription', {
  op: pauseSubscriptionOp,
  input: SubscriptionIdInput('PauseSubscriptionInput'),
  payload: payloadType('PauseSubscriptionPayload', 'subscription', 'Subscription', 'The paused subscription'),
  description: 'Stops charging a subscription until it is resumed',
});

operationMutation('resumeSubscription', {
  op: resumeSubscriptionOp,
  input: SubscriptionIdInput('ResumeSubscriptionInput'),
  payload: payloadType('ResumeSubscriptionPayload', 'subscription', 'Subscription', 'The resumed subscription'),
  description: 'Resumes a paused subscription (a new period, charged now) or withdraws a scheduled cancellation',
});

const UpdateBehaviorEnum = apiEnum('SubscriptionUpdateBehavior', UPDATE_BEHAVIORS, 'Where the difference for the rest of the period goes: charged now, on the next invoice, or nowhere');

operationMutation('updateSubscription', {
  op: updateSubscriptionOp,
  input: builder.inputType('UpdateSubscriptionInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      units: t.int({ required: true }),
      updateBehavior: t.field({ type: UpdateBehaviorEnum, required: false, description: 'Default proration_charge' }),
      prorationDate: t.field({ type: 'DateTime', required: false, description: 'Price the change at this instant (as its preview did); default now' }),
    }),
  }),
  toInput: (i) => ({ id: i.id, items: [{ units: i.units }], ...(i.updateBehavior ? { update_behavior: i.updateBehavior } : {}), ...(i.prorationDate ? { proration_date: i.prorationDate.toISOString() } : {}) }),
  fieldNames: { items: 'units' },
  payload: payloadType('UpdateSubscriptionPayload', 'subscription', 'Subscription', 'The changed subscription'),
  description: "Changes the subscription's units, with proration",
});

operationMutation('upgradeSubscription', {
  op: upgradeSubscriptionOp,
  input: builder.inputType('UpgradeSubscriptionInput', {
    fields: (t) => ({
      id: t.id({ required: true }),
      productId: t.id({ required: true }),
      updateBehavior: t.field({ type: UpdateBehaviorEnum, required: false, description: 'Default proration_charge_immediately' }),
      prorationDate: t.field({ type: 'DateTime', required: false, description: 'Price the change at this instant (as its preview did); default now' }),
    }),
  }),
  payload: payloadType('UpgradeSubscriptionPayload', 'subscription', 'Subscription', 'The changed subscription'),
  description: 'Moves the subscription to another recurring product in the same currency, with proration',
});

type PreviewBody = ReturnType<typeof serializeChangePreview>;
type LinesBody = PreviewBody['charge_now'];
const moneyOf = (amount: number, currency: string) => ({ amount: BigInt(amount), currency });

const InvoiceLinesRef = builder.objectRef<LinesBody & { currency: string }>('InvoiceAmounts').implement({
  fields: (t) => ({
    amount: t.field({ type: MoneyRef, description: 'Total, tax included', resolve: (l) => moneyOf(l.amount, l.currency) }),
    taxAmount: t.field({ type: MoneyRef, resolve: (l) => moneyOf(l.tax_amount, l.currency) }),
    discountAmount: t.field({ type: MoneyRef, resolve: (l) => moneyOf(l.discount_amount, l.currency) }),
  }),
});

const ChangePreviewRef = builder.objectRef<PreviewBody>('SubscriptionChangePreview').implement({
  description: 'What a change would charge now and on the next invoice; the change at the same prorationDate charges exactly this',
  fields: (t) => ({
    prorationDate: t.field({ type: 'DateTime', resolve: (p) => new Date(p.proration_date) }),
    prorationAmount: t.field({ type: MoneyRef, description: 'The difference for the rest of the period, before discount and tax', resolve: (p) => moneyOf(p.proration_amount, p.currency) }),
    chargeNow: t.field({ type: InvoiceLinesRef, resolve: (p) => ({ ...p.charge_now, currency: p.currency }) }),
    nextInvoice: t.field({ type: InvoiceLinesRef, resolve: (p) => ({ ...p.next_invoice, currency: p.currency }) }),
    nextInvoicePeriodStart: t.field({ type: 'DateTime', resolve: (p) => new Date(p.next_invoice.period_start) }),
    nextInvoicePeriodEnd: t.field({ type: 'DateTime', resolve: (p) => new Date(p.next_invoice.period_end) }),
  }),
});

builder.queryField('subscriptionChangePreview', (t) =>
  t.field({
    type: ChangePreviewRef,
    description: 'What changing a subscription (product or units) would charge, without changing it',
    args: {
      id: t.arg.id({ required: true }),
      productId: t.arg.id(),
      units: t.arg.int(),
      updateBehavior: t.arg({ type: UpdateBehaviorEnum }),
      prorationDate: t.arg({ type: 'DateTime' }),
    },
    resolve: async (_root, args, ctx) => (await execute(ctx.core, previewChangeOp, toApiInput(args))).body as PreviewBody,
  }),
);
