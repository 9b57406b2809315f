import type { AffiliateProgram } from '../../generated/prisma/client.js';
import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { INPUT_DESCRIPTION, operationMutation, payloadOf, payloadType, USER_ERRORS_DESCRIPTION, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import type { RequestContext } from '../../context.js';
import { affiliateInviteLink, referralLink } from './affiliate-invitations.js';
import { createAffiliateInviteOp, recordAffiliatePayoutOp, updateAffiliateProgramOp } from './affiliates.operations.js';
import { COMMISSION_STATUSES } from './affiliates.schemas.js';
import type { serializePayout } from './affiliates.serializer.js';
import { affiliateListing, commissionListing, commissionStatus, commissionStatusWhere, conversionsOf, earningsOf, inviteListing, programOf } from './affiliates.service.js';

const CommissionStatusEnum = apiEnum('CommissionStatus', COMMISSION_STATUSES, '`pending` during the hold (refund window), `approved` after it, `paid` once the seller recorded its payout', {
  pending: 'Within the program’s holdDays of the payment: a refund may still reverse it',
  approved: 'The hold is over: due to the affiliate at the next payout',
  paid: 'Recorded as paid out (recordAffiliatePayout)',
});

/** The program, read once per request however many commissions ask for their status. */
const programs = new WeakMap<RequestContext, Promise<AffiliateProgram>>();
function programFor(ctx: GraphQLContext): Promise<AffiliateProgram> {
  let p = programs.get(ctx.core);
  if (!p) programs.set(ctx.core, (p = programOf(ctx.core)));
  return p;
}

builder.prismaObject('AffiliateProgram', {
  description: "The store's affiliate program in this environment: the terms every commission is computed at",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (aprg_…)' }),
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    commissionPercent: t.float({ description: 'Of each paid amount net of tax, rounded half away from zero to the minor unit', select: { commissionRate: true }, resolve: (p) => p.commissionRate / 100 }),
    holdDays: t.exposeInt('holdDays', { description: 'Days a commission stays pending before it is approved' }),
    cookieDays: t.exposeInt('cookieDays', { description: 'Days a referral link remembers a visitor for the store’s checkouts' }),
  }),
});

builder.queryField('affiliateProgram', (t) =>
  t.prismaField({ type: 'AffiliateProgram', description: 'The affiliate program (made with the defaults on first use)', resolve: (_query, _root, _args, ctx) => programFor(ctx) }),
);

builder.prismaObject('AffiliateInvite', {
  description: 'An invitation into the affiliate program',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (afi_…)' }),
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    email: t.exposeString('email', { description: 'The address invited' }),
    name: t.exposeString('name', { nullable: true, description: 'The invitee’s name; null when none' }),
    status: t.exposeString('status', { description: 'pending, accepted or declined' }),
    affiliateId: t.exposeString('affiliateId', { nullable: true, description: 'The affiliate it became, once accepted' }),
    inviteUrl: t.string({
      nullable: true,
      description: 'The signed link to pass on to the invitee while pending (valid 30 days from this read)',
      select: { id: true, status: true },
      resolve: (i, _args, ctx) => (i.status === 'pending' ? affiliateInviteLink(ctx.core, i.id) : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the invitation was made' }),
  }),
});

builder.prismaNode('Affiliate', {
  id: { field: 'id', description: 'The /v1 id (aff_…)' },
  nullable: true,
  description: 'Someone who refers buyers and earns commission on what they buy',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    email: t.exposeString('email', { description: 'The affiliate’s address, unique in the store and environment' }),
    name: t.exposeString('name', { nullable: true, description: 'The affiliate’s name; null when none' }),
    status: t.exposeString('status', { description: 'active, or inactive (earns nothing more)' }),
    referralCode: t.exposeString('referralCode', { description: 'Unique across the service; a checkout’s affiliate_code' }),
    referralLink: t.string({ description: 'Counts a click and carries the code to the store’s checkouts', select: { referralCode: true }, resolve: (a, _args, ctx) => referralLink(ctx.core.baseUrl, a.referralCode) }),
    clicks: t.exposeInt('clicks', { description: 'Visits through the referral link' }),
    conversions: t.loadable({
      type: 'Int',
      description: 'Orders attributed to the affiliate',
      load: (ids: string[], ctx: GraphQLContext) => conversionsOf(ctx.core, ids),
      resolve: (a) => a.id,
    }),
    earnings: t.loadableList({
      type: MoneyRef,
      description: 'Lifetime commission net of reversals, per currency, highest first',
      load: (ids: string[], ctx: GraphQLContext) => earningsOf(ctx.core, ids),
      resolve: (a) => a.id,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the affiliate joined' }),
  }),
});

builder.prismaObject('AffiliateCommission', {
  description: "An affiliate's commission on a paid transaction (negative: reversed by a refund), in minor units",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (afc_…)' }),
    affiliateId: t.exposeString('affiliateId', { description: 'The affiliate who earned it (aff_…)' }),
    amount: t.field({ type: MoneyRef, description: 'The commission; negative for a refund’s reversal', select: { amount: true, currency: true }, resolve: (c) => ({ amount: c.amount, currency: c.currency }) }),
    status: t.field({ type: CommissionStatusEnum, description: 'Pending during the hold, then approved, then paid', select: { createdAt: true, paidAt: true }, resolve: async (c, _args, ctx) => commissionStatus(c, await programFor(ctx), ctx.core.clock.now()) }),
    saleId: t.exposeString('transactionId', { description: 'The paid transaction it is on' }),
    refundId: t.exposeString('refundId', { nullable: true, description: 'Set on a reversal: the refund it follows' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true, description: 'When a payout recorded it paid; null until then' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was earned (the payment), or reversed (the refund); the hold counts from here' }),
  }),
});

listQuery('affiliates', { type: 'Affiliate', description: 'Affiliates who joined the program, newest first', listing: (ctx) => affiliateListing(ctx) });
listQuery('affiliateInvites', { type: 'AffiliateInvite', description: 'Invitations sent, newest first', listing: (ctx) => inviteListing(ctx) });
listQuery('affiliateCommissions', {
  type: 'AffiliateCommission',
  description: "One affiliate's commissions and reversals, newest first, optionally of one status",
  args: (arg) => ({ affiliateId: arg.id({ required: true, description: 'aff_…' }), status: arg({ type: CommissionStatusEnum, required: false, description: 'Only commissions of this status (as of now)' }) }),
  listing: (ctx, args) => {
    // The status filter needs the program's hold, read once for rows and count alike.
    const list = programOf(ctx).then((program) => commissionListing(ctx, String(args.affiliateId), commissionStatusWhere(args.status ?? undefined, program, ctx.clock.now())));
    return { rows: async (query: object) => (await list).rows(query as never), count: async () => (await list).count() };
  },
});

operationMutation('inviteAffiliate', {
  op: createAffiliateInviteOp,
  input: builder.inputType('InviteAffiliateInput', {
    description: 'Who to invite into the affiliate program',
    fields: (t) => ({
      email: t.string({ required: true, description: 'The invitee’s address: not an affiliate already, no pending invitation' }),
      name: t.string({ required: true, description: 'The invitee’s name' }),
      programId: t.id({ required: false, description: 'Optional: the store has one program per environment' }),
    }),
  }),
  payload: payloadType('InviteAffiliatePayload', 'invite', 'AffiliateInvite', 'The invitation, with the link to pass on'),
  description: 'Invites an e-mail address into the affiliate program; the invitee joins through `invite.inviteUrl`',
});

operationMutation('updateAffiliateProgram', {
  op: updateAffiliateProgramOp,
  input: builder.inputType('UpdateAffiliateProgramInput', {
    description: 'The program’s terms to change; those not given keep their values',
    fields: (t) => ({
      commissionPercent: t.float({ required: false, description: '0 to 100, two decimals at most; applies to payments from now on' }),
      holdDays: t.int({ required: false, description: 'Days a commission stays pending, 0 to 365' }),
      cookieDays: t.int({ required: false, description: 'Days a referral link remembers a visitor, 1 to 365' }),
    }),
  }),
  payload: payloadType('UpdateAffiliateProgramPayload', 'program', 'AffiliateProgram', 'The program as it is now'),
  description: 'Changes the terms of the affiliate program; commissions already earned keep their amounts',
});

type Payout = ReturnType<typeof serializePayout>;
const PayoutRef = builder.objectRef<Payout>('AffiliatePayout').implement({
  description: "Approved commissions recorded as paid out, per currency (the seller pays outside this service)",
  fields: (t) => ({
    affiliateId: t.string({ description: 'The affiliate paid (aff_…)', resolve: (p) => p.affiliate }),
    paidAt: t.field({ type: 'DateTime', description: 'When the payout was recorded', resolve: (p) => new Date(p.paid_at) }),
    totals: t.field({ type: [MoneyRef], description: 'What the settled commissions come to, net of reversals, per currency', resolve: (p) => p.totals.map((x) => ({ amount: BigInt(x.amount), currency: x.currency })) }),
    commissions: t.int({ description: 'How many commissions and reversals it settled', resolve: (p) => p.totals.reduce((n, x) => n + x.commissions, 0) }),
  }),
});

builder.mutationField('recordAffiliatePayout', (t) =>
  t.field({
    type: builder.objectRef<Payload>('RecordAffiliatePayoutPayload').implement({
      description: 'The payout recorded, or the userErrors that refused it',
      fields: (f) => ({
        payout: f.field({ type: PayoutRef, nullable: true, description: 'The payout; null when refused', resolve: (p) => (p.body as Payout | null) ?? null }),
        userErrors: f.field({ type: [UserErrorRef], description: USER_ERRORS_DESCRIPTION, resolve: (p) => p.userErrors }),
      }),
    }),
    description: "Marks the affiliate's approved commissions as paid",
    args: {
      input: t.arg({
        type: builder.inputType('RecordAffiliatePayoutInput', { description: 'The affiliate paid', fields: (f) => ({ affiliateId: f.id({ required: true, description: 'aff_…' }) }) }),
        required: true,
        description: INPUT_DESCRIPTION,
      }),
    },
    resolve: (_root, args, ctx) => payloadOf(ctx, recordAffiliatePayoutOp, { id: String(args.input.affiliateId) }, { id: 'affiliateId' }),
  }),
);
