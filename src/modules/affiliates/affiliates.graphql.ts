import type { AffiliateProgram } from '../../generated/prisma/client.js';
import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { operationMutation, payloadOf, payloadType, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import type { RequestContext } from '../../context.js';
import { affiliateInviteLink, referralLink } from './affiliate-invitations.js';
import { createAffiliateInviteOp, recordAffiliatePayoutOp, updateAffiliateProgramOp } from './affiliates.operations.js';
import { COMMISSION_STATUSES } from './affiliates.schemas.js';
import type { serializePayout } from './affiliates.serializer.js';
import { affiliateListing, commissionListing, commissionStatus, commissionStatusWhere, conversionsOf, earningsOf, inviteListing, programOf } from './affiliates.service.js';

const CommissionStatusEnum = apiEnum('CommissionStatus', COMMISSION_STATUSES, '`pending` during the hold (refund window), `approved` after it, `paid` once the seller recorded its payout');

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
    id: t.exposeID('id'),
    mode: t.expose('mode', { type: ModeEnum }),
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
    id: t.exposeID('id'),
    mode: t.expose('mode', { type: ModeEnum }),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    status: t.exposeString('status', { description: 'pending, accepted or declined' }),
    affiliateId: t.exposeString('affiliateId', { nullable: true, description: 'The affiliate it became, once accepted' }),
    inviteUrl: t.string({
      nullable: true,
      description: 'The signed link to pass on to the invitee while pending (valid 30 days from this read)',
      select: { id: true, status: true },
      resolve: (i, _args, ctx) => (i.status === 'pending' ? affiliateInviteLink(ctx.core, i.id) : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaNode('Affiliate', {
  id: { field: 'id' },
  nullable: true,
  description: 'Someone who refers buyers and earns commission on what they buy',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
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
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObject('AffiliateCommission', {
  description: "An affiliate's commission on a paid transaction (negative: reversed by a refund), in minor units",
  fields: (t) => ({
    id: t.exposeID('id'),
    affiliateId: t.exposeString('affiliateId'),
    amount: t.field({ type: MoneyRef, select: { amount: true, currency: true }, resolve: (c) => ({ amount: c.amount, currency: c.currency }) }),
    status: t.field({ type: CommissionStatusEnum, select: { createdAt: true, paidAt: true }, resolve: async (c, _args, ctx) => commissionStatus(c, await programFor(ctx), ctx.core.clock.now()) }),
    saleId: t.exposeString('transactionId', { description: 'The paid transaction it is on' }),
    refundId: t.exposeString('refundId', { nullable: true, description: 'Set on a reversal: the refund it follows' }),
    paidAt: t.expose('paidAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

listQuery('affiliates', { type: 'Affiliate', description: 'Affiliates who joined the program, newest first', listing: (ctx) => affiliateListing(ctx) });
listQuery('affiliateInvites', { type: 'AffiliateInvite', description: 'Invitations sent, newest first', listing: (ctx) => inviteListing(ctx) });
listQuery('affiliateCommissions', {
  type: 'AffiliateCommission',
  description: "One affiliate's commissions and reversals, newest first, optionally of one status",
  args: (arg) => ({ affiliateId: arg.id({ required: true, description: 'aff_…' }), status: arg({ type: CommissionStatusEnum, required: false }) }),
  listing: (ctx, args) => {
    // The status filter needs the program's hold, read once for rows and count alike.
    const list = programOf(ctx).then((program) => commissionListing(ctx, String(args.affiliateId), commissionStatusWhere(args.status ?? undefined, program, ctx.clock.now())));
    return { rows: async (query: object) => (await list).rows(query as never), count: async () => (await list).count() };
  },
});

operationMutation('inviteAffiliate', {
  op: createAffiliateInviteOp,
  input: builder.inputType('InviteAffiliateInput', {
    fields: (t) => ({
      email: t.string({ required: true }),
      name: t.string({ required: true }),
      programId: t.id({ required: false, description: 'Optional: the store has one program per environment' }),
    }),
  }),
  payload: payloadType('InviteAffiliatePayload', 'invite', 'AffiliateInvite', 'The invitation, with the link to pass on'),
  description: 'Invites an e-mail address into the affiliate program; the invitee joins through `invite.inviteUrl`',
});

operationMutation('updateAffiliateProgram', {
  op: updateAffiliateProgramOp,
  input: builder.inputType('UpdateAffiliateProgramInput', {
    fields: (t) => ({
      commissionPercent: t.float({ required: false, description: '0 to 100, two decimals at most; applies to payments from now on' }),
      holdDays: t.int({ required: false, description: '0 to 365' }),
      cookieDays: t.int({ required: false, description: '1 to 365' }),
    }),
  }),
  payload: payloadType('UpdateAffiliateProgramPayload', 'program', 'AffiliateProgram', 'The program as it is now'),
  description: 'Changes the terms of the affiliate program; commissions already earned keep their amounts',
});

type Payout = ReturnType<typeof serializePayout>;
const PayoutRef = builder.objectRef<Payout>('AffiliatePayout').implement({
  description: "Approved commissions recorded as paid out, per currency (the seller pays outside this service)",
  fields: (t) => ({
    affiliateId: t.string({ resolve: (p) => p.affiliate }),
    paidAt: t.field({ type: 'DateTime', resolve: (p) => new Date(p.paid_at) }),
    totals: t.field({ type: [MoneyRef], resolve: (p) => p.totals.map((x) => ({ amount: BigInt(x.amount), currency: x.currency })) }),
    commissions: t.int({ description: 'How many commissions and reversals it settled', resolve: (p) => p.totals.reduce((n, x) => n + x.commissions, 0) }),
  }),
});

builder.mutationField('recordAffiliatePayout', (t) =>
  t.field({
    type: builder.objectRef<Payload>('RecordAffiliatePayoutPayload').implement({
      fields: (f) => ({
        payout: f.field({ type: PayoutRef, nullable: true, resolve: (p) => (p.body as Payout | null) ?? null }),
        userErrors: f.field({ type: [UserErrorRef], resolve: (p) => p.userErrors }),
      }),
    }),
    description: "Marks the affiliate's approved commissions as paid",
    args: { input: t.arg({ type: builder.inputType('RecordAffiliatePayoutInput', { fields: (f) => ({ affiliateId: f.id({ required: true, description: 'aff_…' }) }) }), required: true }) },
    resolve: (_root, args, ctx) => payloadOf(ctx, recordAffiliatePayoutOp, { id: String(args.input.affiliateId) }, { id: 'affiliateId' }),
  }),
);
