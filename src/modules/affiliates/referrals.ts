import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { programOf } from './affiliates.service.js';

/** How many products a referral link's landing page lists. */
const LANDING_PRODUCTS = 50;

/**
 * A visit through an affiliate's referral link: one click counted (a conditional increment,
 * so concurrent visits all count and an affiliate who is no longer active counts none), and
 * what the landing page shows. Null when the affiliate is not active.
 */
export async function recordReferralVisit(ctx: RequestContext, affiliateId: string) {
  const { count } = await db(ctx).affiliate.updateMany({ where: { id: affiliateId, status: 'active' }, data: { clicks: { increment: 1 } } });
  if (!count) return null;
  const [program, store, products] = await Promise.all([
    programOf(ctx),
    db(ctx).store.findUnique({ where: { id: ctx.storeId }, select: { name: true } }),
    db(ctx).product.findMany({ where: { status: 'active' }, orderBy: { id: 'desc' }, take: LANDING_PRODUCTS, select: { id: true, name: true, description: true, price: true, currency: true, billingType: true, billingPeriod: true } }),
  ]);
  return { cookieDays: program.cookieDays, storeName: store?.name ?? ctx.storeId, products };
}
