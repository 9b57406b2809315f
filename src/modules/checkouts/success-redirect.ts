import { createHmac } from 'node:crypto';
import type { RequestContext } from '../../context.js';
import { redirectSigningKeyHash } from '../stores/api-keys.js';
import type { PayableCheckout } from './checkouts.service.js';

/** Query parameters a seller needs to confirm a purchase, in the order they are signed. */
export const SIGNED_PARAMS = ['checkout_id', 'order_id', 'customer_id', 'subscription_id', 'product_id', 'request_id'] as const;

/**
 * signature = hex HMAC-SHA256 over "checkout_id=…|order_id=…|…" (the parameters present, in
 * SIGNED_PARAMS order), keyed with the hex SHA-256 of the seller's API key. The service stores
 * only that hash of a key, and the seller, who holds the key, can compute it; so the seller can
 * verify the redirect without the service ever keeping a key in the clear.
 */
export function signRedirectParams(params: Record<string, string>, apiKeyHash: string): string {
  const payload = SIGNED_PARAMS.filter((k) => params[k] !== undefined)
    .map((k) => `${k}=${params[k]}`)
    .join('|');
  return createHmac('sha256', apiKeyHash).update(payload).digest('hex');
}

/** Where the buyer goes after paying: the seller's success URL (or our receipt page) with signed ids. */
export async function successRedirectUrl(ctx: RequestContext, c: PayableCheckout): Promise<string> {
  const target = c.successUrl ?? c.product.defaultSuccessUrl ?? `${ctx.baseUrl}/checkout/${c.id}/receipt`;
  const params: Record<string, string> = { checkout_id: c.id, product_id: c.productId };
  if (c.orderId) params.order_id = c.orderId;
  if (c.customerId) params.customer_id = c.customerId;
  if (c.subscriptionId) params.subscription_id = c.subscriptionId;
  if (c.requestId) params.request_id = c.requestId;
  const url = new URL(target);
  for (const k of SIGNED_PARAMS) if (params[k] !== undefined) url.searchParams.set(k, params[k]);
  const hash = await redirectSigningKeyHash(ctx.data, c);
  if (hash) url.searchParams.set('signature', signRedirectParams(params, hash));
  return url.toString();
}
