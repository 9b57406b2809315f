import type { Prisma as P } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import type { RequestContext } from '../../context.js';
import { db, type DataScope } from '../../db/tenant.js';
import { notFound } from '../../lib/errors.js';
import { signedLinks } from '../../lib/signed-links.js';
import { parseInput } from '../../lib/validation.js';
import { payWithNewCard, type NewCardOutcome } from '../subscriptions/renewals.js';
import { portalCardSchema, type CreatePortalLinkInput } from './portal.schemas.js';

/** A portal link is a bearer credential for the customer's billing data, so it is short-lived. */
export const PORTAL_LINK_LIFETIME_MS = 60 * 60 * 1000;
const portalLinks = signedLinks('customer_portal_key', { path: 'portal', ttlMs: PORTAL_LINK_LIFETIME_MS });
/** The most of each kind (subscriptions, orders, license keys) the portal page shows, newest first. */
export const PORTAL_VIEW_LIMIT = 100;

/** POST /v1/customers/billing: a signed, expiring link to the customer's billing page. */
export async function createPortalLink(ctx: RequestContext, input: CreatePortalLinkInput): Promise<{ customer_portal_link: string }> {
  const customer = await db(ctx).customer.findUnique({ where: { id: input.customer_id }, select: { id: true } });
  if (!customer) throw notFound('Customer', input.customer_id);
  return { customer_portal_link: await portalLinks.url(ctx, customer.id) };
}

/** Whether a portal link is genuine and still valid for this environment. */
export const portalLinkValid = (scope: DataScope, mode: Mode, now: Date, customerId: string, expires: string, signature: string) => portalLinks.valid(scope, mode, now, customerId, expires, signature);

const withProductName = { include: { product: { select: { name: true } } }, orderBy: { id: 'desc' }, take: PORTAL_VIEW_LIMIT } as const;

/** What the portal page shows: each list newest first, at most PORTAL_VIEW_LIMIT long, with the product's name. */
export const PORTAL_VIEW_INCLUDE = {
  subscriptions: withProductName,
  orders: withProductName,
  licenses: withProductName,
} satisfies P.CustomerInclude;

export type PortalView = P.CustomerGetPayload<{ include: typeof PORTAL_VIEW_INCLUDE }>;

/**
 * The customer, with the subscriptions, orders and license keys the portal page lists; null
 * when the context's store has no such customer in its environment. The page checks the link
 * (portalLinkValid) before calling this.
 */
export function portalView(ctx: RequestContext, customerId: string): Promise<PortalView | null> {
  return db(ctx).customer.findUnique({ where: { id: customerId }, include: PORTAL_VIEW_INCLUDE });
}

/**
 * The portal's "pay with a new card": the subscription must be the customer's. What is due is
 * paid with the card at once, and later renewals charge it.
 */
export async function payWithNewCardFromPortal(ctx: RequestContext, customerId: string, subscriptionId: string, raw: unknown): Promise<NewCardOutcome> {
  const input = parseInput(portalCardSchema, raw);
  const s = await db(ctx).subscription.findFirst({ where: { id: subscriptionId, customerId }, select: { id: true } });
  if (!s) throw notFound('Subscription', subscriptionId);
  return payWithNewCard(ctx, s.id, { number: input.card_number, expMonth: input.card_expiry.month, expYear: input.card_expiry.year, cvc: input.card_cvc });
}
