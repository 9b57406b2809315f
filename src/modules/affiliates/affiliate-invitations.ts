import { randomInt } from 'node:crypto';
import type { Affiliate } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import type { DataScope } from '../../db/tenant.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { affiliateByCode } from '../../db/system.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { signedLinks } from '../../lib/signed-links.js';

/**
 * Affiliate invitations are answered through a signed link (there is no mail server: the link
 * is returned to the seller, who passes it on). Accepting makes the invitee an active
 * affiliate with a referral code; declining closes the invitation.
 */
/** How long an invitation link stays valid. */
export const AFFILIATE_INVITE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const inviteLinks = signedLinks('affiliate_invitation_key', { path: 'affiliate-invitations', ttlMs: AFFILIATE_INVITE_TTL_MS });

export const affiliateInviteLink = (ctx: RequestContext, inviteId: string) => inviteLinks.url(ctx, inviteId);

export const affiliateInviteLinkValid = (scope: DataScope, mode: Mode, now: Date, inviteId: string, expires: string, signature: string) =>
  inviteLinks.valid(scope, mode, now, inviteId, expires, signature);

/** The public address of an affiliate's referral link: it names the code only. */
export const referralLink = (baseUrl: string, code: string) => `${baseUrl}/r/${code}`;

/** Crockford's base32 without the letters people misread: codes are read aloud and typed. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 8;

/** 40 random bits; a clash with an existing code (unique across the service) is drawn again. */
function drawCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** Codes as buyers and sellers type them: case and surrounding space do not matter. */
export const normalizeReferralCode = (code: string) => code.trim().toUpperCase();

/** What the invitation page shows: the invitation, the inviting store's name and the program's terms; null when gone. */
export async function affiliateInviteView(ctx: RequestContext, inviteId: string) {
  const invite = await db(ctx).affiliateInvite.findUnique({ where: { id: inviteId } });
  if (!invite) return null;
  const [store, program] = await Promise.all([
    db(ctx).store.findUnique({ where: { id: ctx.storeId }, select: { name: true } }),
    db(ctx).affiliateProgram.findUniqueOrThrow({ where: { id: invite.programId } }),
  ]);
  return { invite, inviter: store?.name ?? ctx.storeId, percent: program.commissionRate / 100, holdDays: program.holdDays, cookieDays: program.cookieDays };
}

/**
 * The invitee joins: an affiliate of the program with a fresh referral code, or, when the
 * address is an affiliate already, that affiliate. Only a pending invitation can be answered,
 * once (the invitation row is locked).
 */
export async function acceptAffiliateInvite(ctx: RequestContext, inviteId: string, name: string | null): Promise<Affiliate> {
  return inTransaction(ctx, async (tx) => {
    if (!(await lockRow(tx, 'AffiliateInvite', inviteId))) throw notFound('Invitation');
    const invite = await db(tx).affiliateInvite.findUniqueOrThrow({ where: { id: inviteId } });
    if (invite.status !== 'pending') throw new AppError('change_in_progress', `This invitation was already ${invite.status}`);
    const existing = await db(tx).affiliate.findFirst({ where: { email: invite.email } });
    const affiliate =
      existing ??
      (await db(tx).affiliate.create({
        data: { id: newId('affiliate'), programId: invite.programId, email: invite.email, name: name || invite.name, referralCode: await unusedCode(tx), createdAt: tx.clock.now() },
      }));
    await db(tx).affiliateInvite.update({ where: { id: inviteId }, data: { status: 'accepted', affiliateId: affiliate.id } });
    return affiliate;
  });
}

/** A code no affiliate of any store holds (codes are global: a referral link names no store). */
async function unusedCode(ctx: RequestContext): Promise<string> {
  for (;;) {
    const code = drawCode();
    if (!(await referralCodeTaken(ctx, code))) return code;
  }
}

const referralCodeTaken = async (ctx: RequestContext, code: string) => (await affiliateByCode(ctx.data, code)) !== null;

export async function declineAffiliateInvite(ctx: RequestContext, inviteId: string): Promise<void> {
  const { count } = await db(ctx).affiliateInvite.updateMany({ where: { id: inviteId, status: 'pending' }, data: { status: 'declined' } });
  if (!count) throw new AppError('change_in_progress', 'This invitation was already answered');
}
