import { z } from 'zod';
import type { AffiliateCommission, AffiliateProgram } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { modeField, unixMillis, wireAmount } from '../../lib/response-schemas.js';
import { referralLink } from './affiliate-invitations.js';
import { COMMISSION_STATUSES } from './affiliates.schemas.js';
import { commissionStatus, type AffiliateWithStats, type InviteWithLink } from './affiliates.service.js';

/** Unix milliseconds, as the affiliate models write times. */

/** The /v1 AffiliateInviteEntity. */
export const affiliateInviteEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('affiliate_invite'),
    email: z.string(),
    name: z.string().nullable(),
    status: z.string().meta({ description: 'pending, accepted or declined' }),
    created_at: unixMillis,
    // Extension: the invitee's link while the invitation is pending.
    invite_url: z.string().optional(),
  })
  .meta({ id: 'AffiliateInviteEntity' });
export type AffiliateInviteEntity = z.infer<typeof affiliateInviteEntity>;

/** The /v1 AffiliateEntity. */
export const affiliateEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('affiliate'),
    email: z.string(),
    name: z.string().nullable(),
    status: z.string().meta({ description: 'active or inactive' }),
    referral_code: z.string(),
    referral_link: z.string(),
    clicks: z.number().int(),
    conversions: z.number().int(),
    earnings: wireAmount.meta({ description: "Lifetime commissions net of reversals, in minor units of `currency` (the affiliate's highest-earning one)" }),
    currency: z.string(),
  })
  .meta({ id: 'AffiliateEntity' });
export type AffiliateEntity = z.infer<typeof affiliateEntity>;

/** The /v1 CommissionEntity. */
export const commissionEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('commission'),
    affiliate: z.string(),
    amount: wireAmount.meta({ description: "Minor units (cents); negative for a refund's reversal" }),
    currency: z.string(),
    status: z.enum(COMMISSION_STATUSES),
    sale: z.string(),
    // Extension: set on a reversal, the refund it follows.
    refund: z.string().nullable(),
    created_at: unixMillis,
  })
  .meta({ id: 'CommissionEntity' });
export type CommissionEntity = z.infer<typeof commissionEntity>;

/** The affiliate program's settings (this service's extension). */
export const affiliateProgramEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('affiliate_program'),
    commission_percent: z.number(),
    hold_days: z.number().int(),
    cookie_days: z.number().int(),
    created_at: unixMillis,
  })
  .meta({ id: 'AffiliateProgramEntity' });
export type AffiliateProgramEntity = z.infer<typeof affiliateProgramEntity>;

/** A recorded payout of an affiliate's approved commissions (this service's extension). */
export const affiliatePayoutEntity = z
  .object({
    object: z.literal('affiliate_payout'),
    affiliate: z.string(),
    paid_at: unixMillis,
    totals: z.array(z.object({ currency: z.string(), amount: wireAmount, commissions: z.number().int() })),
  })
  .meta({ id: 'AffiliatePayoutEntity' });
export type AffiliatePayoutEntity = z.infer<typeof affiliatePayoutEntity>;

/** The /v1 shapes of the client's affiliate models; timestamps in Unix milliseconds. */

export function serializeInvite(i: InviteWithLink): AffiliateInviteEntity {
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

export function serializeAffiliate(a: AffiliateWithStats, baseUrl: string): AffiliateEntity {
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

export function serializeCommission(c: AffiliateCommission, program: Pick<AffiliateProgram, 'holdDays'>, now: Date): CommissionEntity {
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
export function serializeProgram(p: AffiliateProgram): AffiliateProgramEntity {
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

export function serializePayout(p: { affiliateId: string; paidAt: Date; totals: { currency: string; amount: bigint; commissions: number }[] }): AffiliatePayoutEntity {
  return {
    object: 'affiliate_payout',
    affiliate: p.affiliateId,
    paid_at: p.paidAt.getTime(),
    totals: p.totals.map((t) => ({ currency: t.currency, amount: toWireNumber(t.amount), commissions: t.commissions })),
  };
}
