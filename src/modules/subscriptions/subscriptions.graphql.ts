import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
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

const SubscriptionStatusEnum = apiEnum('SubscriptionStatus', SUBSCRIPTION_STATUSES, 'Where a subscription is in its life: trial, paying, in dunning, paused or ended', {
  active: 'Paid up; renews at the end of each period with the saved card',
  trialing: 'In its trial: the first paid period is charged when trialEndDate comes',
  past_due: 'A renewal was declined: retried on the dunning schedule (by default 1, 3, 5 and 7 days after the first failure); nextTransactionDate is the next retry',
  unpaid: 'The dunning retries were spent without payment: no longer charged; a new card on the customer portal pays what is due and makes it active',
  scheduled_cancel: 'Paid up, ends at the end of the current period (then canceled or paused); resumeSubscription withdraws that',
  paused: 'Not charged until resumed; resuming starts a new period, charged at once',
  canceled: 'Ended for good: no more charges (canceledAt says when)',
});

builder.prismaNode('SubscriptionItem', {
  id: { field: 'id', description: 'The /v1 id (sitem_…)' },
  nullable: true,
  description: 'What a subscription charges for: a product’s price × units (a subscription has one item)',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    priceId: t.exposeString('priceId', { description: 'The price charged: the product id, prices not being separate objects' }),
    units: t.exposeInt('units', { description: 'Quantity charged each period' }),
    product: t.relation('product', { description: 'The product subscribed to' }),
    subscription: t.relation('subscription', { description: 'The subscription it belongs to' }),
  }),
});

export const SubscriptionNode = builder.prismaNode('Subscription', {
  id: { field: 'id', description: 'The /v1 id (sub_…)' },
  nullable: true,
  description: 'A customer’s subscription to a recurring product: charged with the card saved at checkout at the end of each period',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    status: t.expose('status', { type: SubscriptionStatusEnum, description: 'Trial, paying, in dunning, paused or ended' }),
    collectionMethod: t.exposeString('collectionMethod', { description: 'Always charge_automatically: charged with the card saved at checkout' }),
    lastTransactionId: t.exposeString('lastTransactionId', { nullable: true, description: 'Id of lastTransaction (txn_…); null when there is none' }),
    lastTransactionDate: t.expose('lastTransactionDate', { type: 'DateTime', nullable: true, description: 'When lastTransaction was charged; null when there is none' }),
    nextTransactionDate: t.expose('nextTransactionDate', { type: 'DateTime', nullable: true, description: 'When the renewal job next acts: the period end, or the next retry while past_due; null when paused, canceled or unpaid' }),
    currentPeriodStartDate: t.expose('currentPeriodStartDate', { type: 'DateTime', nullable: true, description: 'Start of the current period (the trial, while trialing)' }),
    currentPeriodEndDate: t.expose('currentPeriodEndDate', { type: 'DateTime', nullable: true, description: 'End of the current period: when it renews, or a scheduled cancellation takes effect' }),
    trialEndDate: t.expose('trialEndDate', { type: 'DateTime', nullable: true, description: 'When the trial ends and the first paid period starts; null without a trial' }),
    canceledAt: t.expose('canceledAt', { type: 'DateTime', nullable: true, description: 'When it was canceled (the period end, for a scheduled cancellation); null unless canceled' }),
    metadata: t.expose('metadata', { type: 'JSON', description: 'Key-value pairs, from the checkout that started it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the subscription started (its checkout was paid)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the subscription last changed' }),
    product: t.relation('product', { description: 'The recurring product subscribed to (changed by upgradeSubscription)' }),
    customer: t.relation('customer', { description: 'The subscriber' }),
    discount: t.relation('discount', { nullable: true, description: 'The discount applied at checkout; null without one' }),
    items: t.relation('items', { description: 'What it charges for (one item: product and units)', query: { orderBy: { id: 'asc' } } }),
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
  args: (arg) => ({
    customerId: arg.id({ description: 'Only this customer’s (cust_…)' }),
    productId: arg.id({ description: 'Only subscriptions to this product (prod_…)' }),
    status: arg({ type: SubscriptionStatusEnum, description: 'Only subscriptions of this status' }),
  }),
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

const SubscriptionIdInput = (name: string) => builder.inputType(name, { description: 'The subscription to act on', fields: (t) => ({ id: t.id({ required: true, description: 'sub_…' }) }) });

operationMutation('cancelSubscription', {
  op: cancelSubscriptionOp,
  input: builder.inputType('CancelSubscriptionInput', {
    description: 'The subscription to cancel, now or at the end of its period',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The subscription (sub_…)' }),
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

const UpdateBehaviorEnum = apiEnum('SubscriptionUpdateBehavior', UPDATE_BEHAVIORS, 'Where the difference for the rest of the period goes: charged now, on the next invoice, or nowhere', {
  'proration-charge-immediately': 'Charged now with the saved card (a decline changes nothing); a credit goes on the next invoice',
  'proration-charge': 'Added to the next renewal invoice (a credit lowers it)',
  'proration-none': 'Not charged: only the next renewal charges the new price',
});

operationMutation('updateSubscription', {
  op: updateSubscriptionOp,
  input: builder.inputType('UpdateSubscriptionInput', {
    description: 'A new quantity for a subscription, and how to charge the difference',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The subscription (sub_…)' }),
      units: t.int({ required: true, description: 'The new quantity, 1 to 100000' }),
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
    description: 'Another product for a subscription, and how to charge the difference',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The subscription (sub_…)' }),
      productId: t.id({ required: true, description: 'A recurring, active product in the same currency (prod_…)' }),
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
  description: 'The amounts of one charge a change would make',
  fields: (t) => ({
    amount: t.field({ type: MoneyRef, description: 'Total, tax included', resolve: (l) => moneyOf(l.amount, l.currency) }),
    taxAmount: t.field({ type: MoneyRef, description: 'The tax in amount', resolve: (l) => moneyOf(l.tax_amount, l.currency) }),
    discountAmount: t.field({ type: MoneyRef, description: 'Taken off by the subscription’s discount', resolve: (l) => moneyOf(l.discount_amount, l.currency) }),
  }),
});

const ChangePreviewRef = builder.objectRef<PreviewBody>('SubscriptionChangePreview').implement({
  description: 'What a change would charge now and on the next invoice; the change at the same prorationDate charges exactly this',
  fields: (t) => ({
    prorationDate: t.field({ type: 'DateTime', description: 'The instant the change was priced at: send it with the change to be charged exactly this', resolve: (p) => new Date(p.proration_date) }),
    prorationAmount: t.field({ type: MoneyRef, description: 'The difference for the rest of the period, before discount and tax', resolve: (p) => moneyOf(p.proration_amount, p.currency) }),
    chargeNow: t.field({ type: InvoiceLinesRef, description: 'Charged now with the saved card (proration_charge_immediately, a positive difference); zero otherwise', resolve: (p) => ({ ...p.charge_now, currency: p.currency }) }),
    nextInvoice: t.field({ type: InvoiceLinesRef, description: 'The next renewal invoice after the change, the difference included unless charged now', resolve: (p) => ({ ...p.next_invoice, currency: p.currency }) }),
    nextInvoicePeriodStart: t.field({ type: 'DateTime', description: 'Start of the period the next invoice pays for', resolve: (p) => new Date(p.next_invoice.period_start) }),
    nextInvoicePeriodEnd: t.field({ type: 'DateTime', description: 'End of the period the next invoice pays for', resolve: (p) => new Date(p.next_invoice.period_end) }),
  }),
});

builder.queryField('subscriptionChangePreview', (t) =>
  t.field({
    type: ChangePreviewRef,
    description: 'What changing a subscription (product or units) would charge, without changing it',
    args: {
      id: t.arg.id({ required: true, description: 'The subscription (sub_…)' }),
      productId: t.arg.id({ description: 'Preview moving to this product (prod_…), as upgradeSubscription; give it or units' }),
      units: t.arg.int({ description: 'Preview this quantity, as updateSubscription; give it or productId' }),
      updateBehavior: t.arg({ type: UpdateBehaviorEnum, description: 'Where the difference goes; default proration_charge_immediately' }),
      prorationDate: t.arg({ type: 'DateTime', description: 'Price the change at this instant; default now' }),
    },
    resolve: async (_root, args, ctx) => (await execute(ctx.core, previewChangeOp, toApiInput(args))).body as PreviewBody,
  }),
);
