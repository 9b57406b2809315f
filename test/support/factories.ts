/**
 * Shared test data, made through the same operations the API runs (input validated by the
 * operation's schema, writes in one transaction), so a factory can never build a row the
 * service itself would refuse. Each takes a core context: `storeContext(db)` for service
 * tests, `service.contextOf(store)` for tests that go through HTTP.
 */
import type { RequestContext } from '../../src/context.js';
import { createCheckoutOp } from '../../src/modules/checkouts/checkouts.operations.js';
import { payCheckout } from '../../src/modules/checkouts/checkout-payment.js';
import { payCheckoutSchema } from '../../src/modules/checkouts/checkouts.schemas.js';
import { findCheckoutOrThrow } from '../../src/modules/checkouts/checkouts.service.js';
import { createCustomerOp } from '../../src/modules/customers/customers.operations.js';
import { createProductOp } from '../../src/modules/products/products.operations.js';
import { parseInput } from '../../src/lib/validation.js';
import { perform } from './context.js';

let serial = 0;
const next = () => ++serial;

/** A product: one-time, 10.00 EUR, unless `fields` say otherwise (in /v1 field names). */
export function makeProduct(ctx: RequestContext, fields: Record<string, unknown> = {}) {
  return perform(ctx, createProductOp, { name: `Product ${next()}`, price: 1000, currency: 'EUR', billing_type: 'onetime', ...fields });
}

/** A monthly subscription product (10.00 EUR) unless `fields` say otherwise. */
export function makeRecurringProduct(ctx: RequestContext, fields: Record<string, unknown> = {}) {
  return makeProduct(ctx, { billing_type: 'recurring', billing_period: 'every-month', ...fields });
}

export function makeCustomer(ctx: RequestContext, fields: Record<string, unknown> = {}) {
  return perform(ctx, createCustomerOp, { email: `customer${next()}@example.com`, ...fields });
}

export const TEST_BUYER = { email: 'buyer@example.com', name: 'Ada Buyer', country: 'US', card_number: '4242424242424242', card_expiry: '12/34', card_cvc: '123' };

/**
 * A checkout of `productId`, paid as the hosted page pays it (the simulated processor's test
 * card by default); returns the completed checkout with its order, customer and subscription.
 */
export async function makePaidCheckout(
  ctx: RequestContext,
  productId: string,
  options: { checkout?: Record<string, unknown>; buyer?: Partial<typeof TEST_BUYER> & Record<string, unknown> } = {},
) {
  const checkout = await perform(ctx, createCheckoutOp, { product_id: productId, ...options.checkout });
  const outcome = await payCheckout(ctx, checkout.id, parseInput(payCheckoutSchema, { ...TEST_BUYER, ...options.buyer }));
  if (outcome.kind !== 'completed') throw new Error(`the test payment did not complete: ${outcome.kind}`);
  return findCheckoutOrThrow(ctx, { checkout_id: checkout.id });
}

/** An active subscription to a new monthly product (or to `productId`), paid by checkout. */
export async function makeSubscription(ctx: RequestContext, options: { productId?: string; product?: Record<string, unknown>; buyer?: Partial<typeof TEST_BUYER> } = {}) {
  const productId = options.productId ?? (await makeRecurringProduct(ctx, options.product)).id;
  const paid = await makePaidCheckout(ctx, productId, { buyer: options.buyer });
  if (!paid.subscription) throw new Error('the product is not recurring: no subscription');
  return { checkout: paid, subscription: paid.subscription, customer: paid.customer! };
}
