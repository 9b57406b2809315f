import type { AffiliateCommission, AffiliateProgram } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { referralLink } from './affiliate-invitations.js';
import { commissionStatus, type AffiliateWithStats, type InviteWithLink } from './affiliates.service.js';

/** The /v1 shapes of the client's affiliate models; timestamps in Unix milliseconds. */

export function serializeInvite(i: InviteWithLink) {
  return {
    id: i.id,
    mode: i.mode,
    object: 'affiliate_invite',
    email: i.email,
    name: i.name,
    status: i.status,
    created_at: i.createdAt.getTime(),
    // Extension: the link the seller passes on to the invitee (there is no mail server).
    ...(i.inviteUrl ? { invite_url: i.inviteUrl } : {}),
  };
}

export function serializeAffiliate(a: AffiliateWithStats, baseUrl: string) {
  return {
    id: a.id,
    mode: a.mode,
    object: 'affiliate',
    email: a.email,
    name: a.name,
    status: a.status,
    referral_code: a.referralCode,
    referral_link: referralLink(baseUrl, a.referralCode),
    clicks: a.clicks,
    conversions: a.conversions,
    earnings: toWireNumber(a.earnings),
    currency: a.currency,
  };
}

export function serializeCommission(c: AffiliateCommission, program: Pick<AffiliateProgram, 'holdDays'>, now: Date) {
  return {
    id: c.id,
    mode: c.mode,
    object: 'commission',
    affiliate: c.affiliateId,
    amount: toWireNumber(c.amount),
    currency: c.currency,
    status: commissionStatus(c, program, now),
    sale: c.transactionId,
    // Extension: set on a reversal, the refund it follows.
    refund: c.refundId,
    created_at: c.createdAt.getTime(),
  };
}

/** The program's settings (this service's extension). */
export function serializeProgram(p: AffiliateProgram) {
  return {
    id: p.id,
    mode: p.mode,
    object: 'affiliate_program',
    commission_percent: p.commissionRate / 100,
    hold_days: p.holdDays,
    cookie_days: p.cookieDays,
    created_at: p.createdAt.getTime(),
  };
}

export function serializePayout(p: { affiliateId: string; paidAt: Date; totals: { currency: string; amount: bigint; commissions: number }[] }) {
  return {
    object: 'affiliate_payout',
    affiliate: p.affiliateId,
    paid_at: p.paidAt.getTime(),
    totals: p.totals.map((t) => ({ currency: t.currency, amount: toWireNumber(t.amount), commissions: t.commissions })),
  };
}
