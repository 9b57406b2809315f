import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Mode } from '../../generated/prisma/enums.js';
import { scope, type RequestContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { serviceSecret } from '../../lib/service-secret.js';
import { parseInput } from '../../lib/validation.js';

export const createPortalLinkSchema = z.strictObject({ customer_id: z.string().min(1).max(100) });

const PORTAL_KEY = 'customer_portal_key';
/** A portal link is a bearer credential for the customer's billing data, so it is short-lived. */
export const PORTAL_LINK_LIFETIME_MS = 60 * 60 * 1000;

const sign = (secret: Buffer, customerId: string, mode: Mode, expires: number) =>
  createHmac('sha256', secret).update(`${customerId}.${mode}.${expires}`).digest('base64url');

/** POST /v1/customers/billing: a signed, expiring link to the customer's billing page. */
export async function createPortalLink(ctx: RequestContext, raw: unknown): Promise<{ customer_portal_link: string }> {
  const { customer_id } = parseInput(createPortalLinkSchema, raw);
  const customer = await ctx.db.customer.findFirst({ where: { id: customer_id, ...scope(ctx) }, select: { id: true } });
  if (!customer) throw notFound('Customer', customer_id);
  const expires = ctx.clock.now().getTime() + PORTAL_LINK_LIFETIME_MS;
  const signature = sign(await serviceSecret(ctx.db, PORTAL_KEY), customer.id, ctx.mode, expires);
  return { customer_portal_link: `${ctx.baseUrl}/portal/${customer.id}?expires=${expires}&signature=${signature}` };
}

/** Whether a portal link is genuine and still valid for this environment. */
export async function portalLinkValid(db: RequestContext['db'], mode: Mode, now: Date, customerId: string, expires: string, signature: string): Promise<boolean> {
  const exp = Number(expires);
  if (!Number.isSafeInteger(exp) || exp <= now.getTime()) return false;
  const expected = Buffer.from(sign(await serviceSecret(db, PORTAL_KEY), customerId, mode, exp));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
