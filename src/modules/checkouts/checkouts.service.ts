import type { Prisma as P } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { contextFor, type RequestContext, type ServiceEnv } from '../../context.js';
import { storeOwning } from '../../db/system.js';
import { withStoreClock } from '../test-clock/test-clock.service.js';
import { db } from '../../db/tenant.js';
import { AppError, IssueList, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_WIRE_AMOUNT } from '../../lib/money.js';
import { parseInput } from '../../lib/validation.js';
import { findRedeemableDiscount } from '../discounts/discounts.service.js';
import { findActiveAffiliate } from '../affiliates/affiliates.service.js';
import { paymentProcessorFor } from '../payments/processor.js';
import { findProductOrThrow, findPurchasableProductOrThrow, PRODUCT_INCLUDE } from '../products/products.service.js';
import { readCheckout } from '../../db/checkouts.js';
import { SUBSCRIPTION_INCLUDE } from '../subscriptions/subscriptions.service.js';
import { extraFieldsOf } from './checkout-fields.js';
import { createCheckoutSchema, type CreateCheckoutInput, type RetrieveCheckoutInput } from './checkouts.schemas.js';

/** What rendering a checkout (API, page, event) needs, loaded in one go. */
export const CHECKOUT_INCLUDE = {
  product: { include: PRODUCT_INCLUDE },
  discount: true,
  customer: true,
  order: { include: { licenses: { orderBy: { id: 'asc' } } } },
  subscription: { include: SUBSCRIPTION_INCLUDE },
} satisfies P.CheckoutInclude;

export type CheckoutWithRelations = P.CheckoutGetPayload<{ include: typeof CHECKOUT_INCLUDE }>;

/**
 * What showing and paying an open checkout needs. Lighter than CHECKOUT_INCLUDE (no order,
 * subscription or licenses, which an open checkout does not have): the payment path reads
 * it under each lock, so its size is paid on every purchase.
 */
export const PAYABLE_INCLUDE = {
  product: { include: PRODUCT_INCLUDE },
  discount: true,
  customer: true,
} satisfies P.CheckoutInclude;

export type PayableCheckout = P.CheckoutGetPayload<{ include: typeof PAYABLE_INCLUDE }>;

type CheckoutSelection = { include?: P.CheckoutInclude; select?: P.CheckoutSelect };

/** An unpaid checkout stops being payable after a day, like a hosted checkout session elsewhere. */
export const CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;

export type CheckoutStatus = 'pending' | 'processing' | 'completed' | 'expired';

/** Expiry is derived from the clock, so no sweeper is needed and the answer is never stale. */
export function checkoutStatus(c: { status: string; createdAt: Date }, now: Date): CheckoutStatus {
  if (c.status === 'pending' && now.getTime() - c.createdAt.getTime() >= CHECKOUT_LIFETIME_MS) return 'expired';
  return c.status as CheckoutStatus;
}

/** A production checkout that nothing can charge would only strand the buyer: refuse it up front. */
export function requirePaymentProcessor(mode: Mode) {
  const processor = paymentProcessorFor(mode);
  if (!processor) {
    throw new AppError(
      'processor_unavailable',
      'No payment processor is configured for the production environment, so this service cannot take payments there. Use the test environment, or plug a processor in (see src/modules/payments/processor.ts).',
    );
  }
  return processor;
}

export async function createCheckout(ctx: RequestContext, input: CreateCheckoutInput): Promise<CheckoutWithRelations> {
  requirePaymentProcessor(ctx.mode);
  const product = await findPurchasableProductOrThrow(ctx, input.product_id);
  const problems = new IssueList();
  const units = input.units ?? 1;

  if (input.custom_price !== undefined) {
    if (product.billingType !== 'onetime') problems.add('custom_price', 'is only supported for one-time products');
    else if (product.payWhatYouWant && input.custom_price < product.price) {
      problems.add('custom_price', `must be at least the product's minimum price of ${product.price}`);
    }
  }
  const unitPrice = input.custom_price ?? product.price;
  if (unitPrice * BigInt(units) > MAX_WIRE_AMOUNT) problems.add('units', `price × units must not exceed ${MAX_WIRE_AMOUNT}`);
  if (input.custom_fields && input.custom_field) problems.add('custom_field', 'send either custom_fields or its deprecated alias custom_field, not both');
  const extra = input.custom_fields ?? input.custom_field ?? [];
  extra.forEach((f, i) => {
    if (extra.findIndex((o) => o.key === f.key) !== i) problems.add(['custom_fields', i, 'key'], `duplicate key "${f.key}"`);
  });
  // The sale is the affiliate's whose code it was when the checkout was made.
  const affiliate = input.affiliate_code ? await findActiveAffiliate(ctx, input.affiliate_code) : null;
  if (input.affiliate_code && !affiliate) problems.add('affiliate_code', `affiliate code ${input.affiliate_code} does not belong to an active affiliate of this store`);

  const customer = input.customer?.id ? await db(ctx).customer.findUnique({ where: { id: input.customer.id } }) : null;
  if (input.customer?.id && !customer) problems.add(['customer', 'id'], `customer ${input.customer.id} does not exist`);
  const customerId = customer?.id ?? null;
  problems.throwIfAny();
  const discount = input.discount_code ? await findRedeemableDiscount(ctx, input.discount_code, product) : null;

  const created = await db(ctx).checkout.create({
    data: {
      id: newId('checkout'),
      requestId: input.request_id ?? null,
      productId: product.id,
      units,
      customPrice: input.custom_price ?? null,
      discountId: discount?.id ?? null,
      customerId,
      customerEmail: input.customer?.email?.toLowerCase() ?? null,
      buyer: input.customer?.name ? { name: input.customer.name } : undefined,
      successUrl: input.success_url ?? null,
      metadata: input.metadata ?? {},
      extraFields: extraFieldsOf(extra) as unknown as P.InputJsonArray,
      affiliateCode: affiliate?.referralCode ?? null,
      affiliateId: affiliate?.id ?? null,
      apiKeyId: ctx.apiKeyId ?? null,
      createdAt: ctx.clock.now(),
    },
  });
  // Its relations are what was just read to make it (a new checkout has no order or
  // subscription yet): reading them back would only cost.
  const { products: _discountProducts, ...discountRow } = discount ?? { products: undefined };
  return { ...created, product, discount: discount ? (discountRow as NonNullable<PayableCheckout['discount']>) : null, customer, order: null, subscription: null };
}

/** A checkout of the caller's store with the caller's selection (default: its /v1 shape); null when there is none such. */
export function findCheckout<S extends CheckoutSelection = { include: typeof CHECKOUT_INCLUDE }>(ctx: RequestContext, input: { id: string }, selection?: S) {
  return db(ctx).checkout.findUnique({ ...(selection ?? { include: CHECKOUT_INCLUDE }), where: { id: input.id } }) as Promise<P.CheckoutGetPayload<S> | null>;
}

/** GET /v1/checkouts?checkout_id=: the checkout with everything its /v1 shape embeds. */
export async function findCheckoutOrThrow(ctx: RequestContext, input: RetrieveCheckoutInput): Promise<CheckoutWithRelations> {
  return orNotFound(db(ctx).checkout.findUnique({ where: { id: input.checkout_id }, include: CHECKOUT_INCLUDE }), 'Checkout', input.checkout_id);
}

/**
 * The open checkout with what paying it needs, or 404: the checkout, its discount and customer
 * in one prepared statement, its product from the product read (cached, like every product
 * read); the same value as the client's read with PAYABLE_INCLUDE.
 */
export async function findPayableCheckoutOrThrow(ctx: RequestContext, id: string): Promise<PayableCheckout> {
  const checkout = await orNotFound(readCheckout(ctx, id), 'Checkout', id);
  return { ...checkout, product: await findProductOrThrow(ctx, { id: checkout.productId }) };
}

const CHECKOUT_ID = /^ch_[0-9A-Z]{26}$/;

/**
 * The hosted page has no API key: the checkout id (a ULID with 80 random bits) is the
 * capability, and the listener's environment must match. Answers the checkout's store
 * context, or null when the environment has no such checkout.
 */
export async function checkoutPageContext(env: ServiceEnv, checkoutId: string, traceId: string): Promise<RequestContext | null> {
  if (!CHECKOUT_ID.test(checkoutId)) return null;
  const storeId = await storeOwning(env.data, 'Checkout', checkoutId, env.mode);
  return storeId ? withStoreClock(contextFor(env, storeId, { traceId, source: 'page' })) : null;
}

/**
 * `product_url`: every visit opens a fresh checkout for the product, in the listener's
 * environment. `referralCode` names the code a referral link left for the product's store, if
 * any: the checkout is that affiliate's while they are active, and a stale code is ignored
 * (it must not keep a buyer from buying).
 */
export async function openCheckoutForProduct(env: ServiceEnv, productId: string, traceId: string, referralCode?: (storeId: string) => string | undefined): Promise<CheckoutWithRelations | null> {
  const storeId = await storeOwning(env.data, 'Product', productId, env.mode);
  if (!storeId) return null;
  const ctx = await withStoreClock(contextFor(env, storeId, { traceId, source: 'page' }));
  const code = referralCode?.(storeId);
  const affiliate = code ? await findActiveAffiliate(ctx, code) : null;
  return createCheckout(ctx, parseInput(createCheckoutSchema, { product_id: productId, ...(affiliate ? { affiliate_code: affiliate.referralCode } : {}) }));
}
