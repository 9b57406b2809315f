import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { createSplitOp, deleteSplitOp } from './splits.operations.js';
import { RECIPIENT_TYPES, SPLIT_TYPES } from './splits.schemas.js';
import { maskEmail } from './splits.serializer.js';
import { invitationLink } from './split-invitations.js';
import { incomingAllocationListing, splitListing } from './splits.service.js';

const SplitTypeEnum = apiEnum('SplitType', SPLIT_TYPES, '`store`: every payment of the store; `product`: payments for one product');
const RecipientTypeEnum = apiEnum('SplitRecipientType', RECIPIENT_TYPES, '`store`: an existing store; `email`: an invitee who has not accepted yet');

builder.prismaObject('SplitRecipient', {
  description: 'Who receives a share of the payments a split covers',
  fields: (t) => ({
    recipientType: t.field({ type: RecipientTypeEnum, description: 'An existing store, or an e-mail invitee', select: { recipientType: true }, resolve: (r) => r.recipientType as (typeof RECIPIENT_TYPES)[number] }),
    recipientReference: t.string({
      description: "A store id, or an invitee's masked e-mail address (never the address itself)",
      select: { recipientType: true, recipientReference: true },
      resolve: (r) => (r.recipientType === 'email' ? maskEmail(r.recipientReference) : r.recipientReference),
    }),
    percent: t.float({ description: 'The share of the payment net of tax, in percent (two decimals at most)', select: { amount: true }, resolve: (r) => Number(r.amount) }),
    enabled: t.exposeBoolean('enabled', { description: 'Receiving its share now; invitees once they accept' }),
    inviteStatus: t.string({ nullable: true, description: 'pending, accepted or declined (invitees only)', select: { recipientType: true, inviteStatus: true }, resolve: (r) => (r.recipientType === 'email' ? r.inviteStatus : null) }),
    inviteUrl: t.string({
      nullable: true,
      description: 'The signed link to pass on to an invitee who has not answered (valid 30 days from this read); null otherwise',
      select: { id: true, recipientType: true, inviteStatus: true },
      resolve: (r, _args, ctx) => (r.recipientType === 'email' && r.inviteStatus === 'pending' ? invitationLink(ctx.core, r.id) : null),
    }),
  }),
});

builder.prismaNode('Split', {
  id: { field: 'id', description: 'The /v1 id (spl_…)' },
  nullable: true,
  // A deleted split is gone for the API, as REST answers 404 for it.
  findUnique: (id) => ({ id, deletedAt: null }),
  description: 'A revenue split: a share of the payments of the store, or of one product, for other stores',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    type: t.field({ type: SplitTypeEnum, description: 'Every payment of the store, or of one product', select: { type: true }, resolve: (s) => s.type as (typeof SPLIT_TYPES)[number] }),
    typeReference: t.exposeString('typeReference', { description: 'The store id (type store) or the product id (type product)' }),
    description: t.exposeString('description', { nullable: true, description: 'Your note; null when none' }),
    enabled: t.exposeBoolean('enabled', { description: 'False while it waits for an invitee to accept, and once deleted' }),
    recipients: t.relation('recipients', { description: 'Who gets a share (1 to 10)', query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the split was created' }),
  }),
});

listQuery('splits', { type: 'Split', description: "The store's splits in this environment, newest first (deleted ones are gone)", listing: (ctx) => splitListing(ctx) });

const SplitPayload = payloadType('SplitPayload', 'split', 'Split', 'The split');

operationMutation('createSplit', {
  op: createSplitOp,
  input: builder.inputType('CreateSplitInput', {
    description: 'A new revenue split',
    fields: (t) => ({
      type: t.field({ type: SplitTypeEnum, required: true, description: 'store: every payment; product: payments for one product' }),
      typeReference: t.string({ required: true, description: 'Your store id (type store) or a product id (type product)' }),
      description: t.string({ required: false, description: 'Your note' }),
      recipients: t.field({
        description: '1 to 10 recipients',
        type: [
          builder.inputType('SplitRecipientInput', {
            description: 'Who gets a share, and how much',
            fields: (f) => ({
              recipientType: f.field({ type: RecipientTypeEnum, required: true, description: 'store (an existing store) or email (an invitee)' }),
              recipientReference: f.string({ required: true, description: 'A store id, or an e-mail address to invite' }),
              amount: f.float({ required: true, description: 'Percent, 1 to 100, two decimals at most; all recipients together at most 100' }),
            }),
          }),
        ],
        required: true,
      }),
    }),
  }),
  payload: SplitPayload,
  description: 'Shares payments with 1 to 10 recipients; with e-mail invitees only it starts disabled until one accepts',
});

operationMutation('deleteSplit', {
  op: deleteSplitOp,
  input: builder.inputType('DeleteSplitInput', { description: 'The split to delete', fields: (t) => ({ id: t.id({ required: true, description: 'spl_…' }) }) }),
  payload: SplitPayload,
  description: 'Stops the split for every payment from now on',
});

builder.prismaObject('SplitAllocation', {
  description: "A recipient's part of a payment under a split (negative: reversed by a refund), net of tax, in minor units",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (spla_…)' }),
    payerStoreId: t.exposeString('storeId', { description: 'The store whose payment it is' }),
    recipientStoreId: t.exposeString('recipientStoreId', { description: 'The store that receives it (sto_…)' }),
    splitId: t.exposeString('splitId', { description: 'The split it is under (spl_…)' }),
    transactionId: t.exposeString('transactionId', { description: "The paying store's transaction" }),
    refundId: t.exposeString('refundId', { nullable: true, description: 'Set on a reversal: the refund it follows' }),
    amount: t.field({ type: 'MinorUnits', description: 'Minor units of currency, net of tax; negative for a reversal', select: { amount: true }, resolve: (a) => a.amount }),
    currency: t.exposeString('currency', { description: 'ISO 4217 code of amount' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the payment (or refund) was recorded' }),
  }),
});

builder.prismaObjectFields('Transaction', (t) => ({
  splitAllocations: t.relation('splitAllocations', { description: 'What the splits of this store took of this payment, and what refunds reversed', query: { orderBy: { id: 'asc' } } }),
}));

listQuery('incomingSplitAllocations', {
  type: 'SplitAllocation',
  description: "What this store receives from other stores' splits, newest first",
  listing: (ctx) => incomingAllocationListing(ctx),
});

