import type { Affiliate, AffiliateInvite, AffiliateProgram, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { listing, readPage } from '../../db/listing.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { invalidField, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { affiliateInviteLink, normalizeReferralCode } from './affiliate-invitations.js';
import type {
  AffiliateIdInput,
  CommissionStatus,
  CreateAffiliateInviteInput,
  ListAffiliatesInput,
  ListCommissionsInput,
  UpdateAffiliateProgramInput,
} from './affiliates.schemas.js';

/**
 * Affiliates: people a store invites to refer buyers. Each store has one program per
 * environment (made on first use) whose rate every commission is computed at. An invitee
 * accepts through a signed link and becomes an active affiliate with a referral code; a
 * checkout carrying the code is theirs, and so is every payment of what it sold (the purchase,
 * and a subscription's renewals and prorations). Commissions are written with the payment
 * (src/modules/affiliates/commissions.ts).
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** The store's program in this environment, created with the defaults on first use. */
export async function programOf(ctx: RequestContext): Promise<AffiliateProgram> {
  const found = await db(ctx).affiliateProgram.findFirst({});
  if (found) return found;
  // ON CONFLICT DO NOTHING, then read: two first uses at once share one program.
  await db(ctx).affiliateProgram.createMany({ data: [{ id: newId('affiliateProgram'), createdAt: ctx.clock.now() }], skipDuplicates: true });
  return db(ctx).affiliateProgram.findFirstOrThrow({});
}

/** The active affiliate of this store holding a referral code; null for an unknown, inactive or other store's code. */
export const findActiveAffiliate = (ctx: RequestContext, code: string) =>
  db(ctx).affiliate.findFirst({ where: { referralCode: normalizeReferralCode(code), status: 'active' }, select: { id: true, referralCode: true } });

export const retrieveProgram = (ctx: RequestContext) => programOf(ctx);

export async function updateProgram(ctx: RequestContext, input: UpdateAffiliateProgramInput): Promise<AffiliateProgram> {
  const program = await programOf(ctx);
  return db(ctx).affiliateProgram.update({
    where: { id: program.id },
    data: {
      ...(input.commission_percent !== undefined ? { commissionRate: Math.round(input.commission_percent * 100) } : {}),
      ...(input.hold_days !== undefined ? { holdDays: input.hold_days } : {}),
      ...(input.cookie_days !== undefined ? { cookieDays: input.cookie_days } : {}),
    },
  });
}

export type InviteWithLink = AffiliateInvite & { inviteUrl?: string };

/** A pending invitation with the link the seller passes on (there is no mail server). */
async function withInviteLink(ctx: RequestContext, invite: AffiliateInvite): Promise<InviteWithLink> {
  return invite.status === 'pending' ? { ...invite, inviteUrl: await affiliateInviteLink(ctx, invite.id) } : invite;
}

/**
 * Invites an e-mail address into the program. Refused, naming the field, for an address that
 * is already an affiliate or already holds a pending invitation (its link is on the list).
 * Invitations of one program are written one at a time (the program row is locked).
 */
export async function createInvite(ctx: RequestContext, input: CreateAffiliateInviteInput): Promise<InviteWithLink> {
  const program = await programOf(ctx);
  if (input.program_id && input.program_id !== program.id) throw invalidField(['program_id'], `no affiliate program of this store has the id ${input.program_id}; yours is ${program.id}`);
  const address = input.email.toLowerCase();
  const invite = await inTransaction(ctx, async (tx) => {
    await lockRow(tx, 'AffiliateProgram', program.id);
    const member = await db(tx).affiliate.findFirst({ where: { email: address }, select: { id: true } });
    if (member) throw invalidField(['email'], `is already an affiliate of this program (${member.id})`);
    const pending = await db(tx).affiliateInvite.findFirst({ where: { email: address, status: 'pending' }, select: { id: true } });
    if (pending) throw invalidField(['email'], `already has a pending invitation (${pending.id})`);
    return db(tx).affiliateInvite.create({ data: { id: newId('affiliateInvite'), programId: program.id, email: address, name: input.name, createdAt: ctx.clock.now() } });
  });
  return withInviteLink(ctx, invite);
}

export const inviteListing = (ctx: RequestContext) => listing(db(ctx).affiliateInvite, {}, { id: 'desc' });

export async function listInvites(ctx: RequestContext, input: ListAffiliatesInput) {
  const page = await inviteListing(ctx).page(input);
  return { ...page, items: await Promise.all((page.items as AffiliateInvite[]).map((i) => withInviteLink(ctx, i))) };
}

/** An affiliate with what the client reports with it: clicks (a column), conversions and lifetime earnings. */
export type AffiliateWithStats = Affiliate & { conversions: number; earnings: bigint; currency: string };

/** Orders attributed to each affiliate (the client's conversions), in the order of `ids`. One grouped statement. */
export async function conversionsOf(ctx: RequestContext, ids: readonly string[]): Promise<number[]> {
  const rows = await db(ctx).order.groupBy({ by: ['affiliate'], where: { affiliate: { in: [...ids] } }, _count: { _all: true } });
  const byId = new Map(rows.map((o) => [o.affiliate, o._count._all]));
  return ids.map((id) => byId.get(id) ?? 0);
}

/** Each affiliate's commissions net of reversals per currency, highest first, in the order of `ids`. One grouped statement. */
export async function earningsOf(ctx: RequestContext, ids: readonly string[]): Promise<{ amount: bigint; currency: string }[][]> {
  const rows = await db(ctx).affiliateCommission.groupBy({ by: ['affiliateId', 'currency'], where: { affiliateId: { in: [...ids] } }, _sum: { amount: true } });
  const byId = new Map<string, { amount: bigint; currency: string }[]>();
  for (const r of rows) byId.set(r.affiliateId, [...(byId.get(r.affiliateId) ?? []), { amount: r._sum.amount ?? 0n, currency: r.currency }]);
  return ids.map((id) => (byId.get(id) ?? []).sort((a, b) => (a.amount === b.amount ? a.currency.localeCompare(b.currency) : a.amount > b.amount ? -1 : 1)));
}

/** The client's figures: conversions, and lifetime earnings in the affiliate's highest-earning currency. */
export async function withStats(ctx: RequestContext, affiliates: readonly Affiliate[]): Promise<AffiliateWithStats[]> {
  if (!affiliates.length) return [];
  const ids = affiliates.map((a) => a.id);
  const [conversions, earnings] = await Promise.all([conversionsOf(ctx, ids), earningsOf(ctx, ids)]);
  const fallback = earnings.some((e) => !e.length) ? await storeCurrency(ctx) : 'USD';
  return affiliates.map((a, i) => ({ ...a, conversions: conversions[i]!, earnings: earnings[i]![0]?.amount ?? 0n, currency: earnings[i]![0]?.currency ?? fallback }));
}

/** The currency an affiliate with no earnings yet reports in: the store's newest product's, else USD. */
async function storeCurrency(ctx: RequestContext): Promise<string> {
  const product = await db(ctx).product.findFirst({ orderBy: { id: 'desc' }, select: { currency: true } });
  return product?.currency ?? 'USD';
}

/** Affiliates who joined (invitees who have not are not among them), newest first. */
export const affiliateListing = (ctx: RequestContext) => listing(db(ctx).affiliate, {}, { id: 'desc' });

export async function listAffiliates(ctx: RequestContext, input: ListAffiliatesInput) {
  const page = await affiliateListing(ctx).page(input);
  return { ...page, items: await withStats(ctx, page.items as Affiliate[]) };
}

export async function retrieveAffiliate(ctx: RequestContext, input: AffiliateIdInput): Promise<AffiliateWithStats> {
  const affiliate = await orNotFound(db(ctx).affiliate.findUnique({ where: { id: input.id } }), 'Affiliate', input.id);
  return (await withStats(ctx, [affiliate]))[0]!;
}

/**
 * A commission's settlement status follows from the clock, so nothing sweeps: `paid` once the
 * seller recorded its payout, `pending` during the program's hold (the refund window), and
 * `approved` after it.
 */
export function commissionStatus(c: { createdAt: Date; paidAt: Date | null }, program: Pick<AffiliateProgram, 'holdDays'>, now: Date): CommissionStatus {
  if (c.paidAt) return 'paid';
  return c.createdAt.getTime() > now.getTime() - program.holdDays * DAY_MS ? 'pending' : 'approved';
}

/** The same rule as a filter. */
export function commissionStatusWhere(status: CommissionStatus | undefined, program: Pick<AffiliateProgram, 'holdDays'>, now: Date): Prisma.AffiliateCommissionWhereInput {
  const cleared = new Date(now.getTime() - program.holdDays * DAY_MS);
  if (status === 'paid') return { paidAt: { not: null } };
  if (status === 'pending') return { paidAt: null, createdAt: { gt: cleared } };
  if (status === 'approved') return { paidAt: null, createdAt: { lte: cleared } };
  return {};
}

export const commissionListing = (ctx: RequestContext, affiliateId: string, where: Prisma.AffiliateCommissionWhereInput) =>
  listing(db(ctx).affiliateCommission, { affiliateId, ...where }, { id: 'desc' });

/** One affiliate's commissions (reversals are negative), newest first, optionally of one status. */
export async function listCommissions(ctx: RequestContext, input: ListCommissionsInput) {
  await orNotFound(db(ctx).affiliate.findUnique({ where: { id: input.id }, select: { id: true } }), 'Affiliate', input.id);
  const program = await programOf(ctx);
  const page = await readPage(commissionListing(ctx, input.id, commissionStatusWhere(input.status, program, ctx.clock.now())), input);
  return { ...page, program };
}

/**
 * Records the affiliate's approved commissions as paid out (the seller pays them outside this
 * service): every approved commission and reversal, in one statement, so a payout nets the
 * reversals that cleared with it. Answers what was marked, per currency.
 */
export async function recordPayout(ctx: RequestContext, input: AffiliateIdInput) {
  await orNotFound(db(ctx).affiliate.findUnique({ where: { id: input.id }, select: { id: true } }), 'Affiliate', input.id);
  const program = await programOf(ctx);
  const now = ctx.clock.now();
  const where = { affiliateId: input.id, ...commissionStatusWhere('approved', program, now) };
  return inTransaction(ctx, async (tx) => {
    // Two payouts at once: the second waits, then finds nothing approved left to mark.
    await lockRow(tx, 'Affiliate', input.id);
    const due = await db(tx).affiliateCommission.groupBy({ by: ['currency'], where, _sum: { amount: true }, _count: { _all: true }, orderBy: { currency: 'asc' } });
    await db(tx).affiliateCommission.updateMany({ where, data: { paidAt: now } });
    return { affiliateId: input.id, paidAt: now, totals: due.map((d) => ({ currency: d.currency, amount: d._sum.amount ?? 0n, commissions: d._count._all })) };
  });
}
