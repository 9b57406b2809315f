import type { Prisma as P } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { scope, type RequestContext } from '../../context.js';
import { AppError, type FieldIssue } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_AMOUNT } from '../../lib/schemas.js';
import { parseInput } from '../../lib/validation.js';
import { findRedeemableDiscount } from '../discounts/discounts.service.js';
import { paymentProcessorFor } from '../payments/processor.js';
import { getPurchasableProduct, PRODUCT_INCLUDE } from '../products/products.service.js';
import { SUBSCRIPTION_INCLUDE } from '../subscriptions/subscriptions.serializer.js';
import { extraFieldsOf } from './checkout-fields.js';
import { createCheckoutSchema, retrieveCheckoutSchema } from './checkouts.schemas.js';

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

/** An unpaid checkout stops being payable after a day, like a hosted checkout session elsewhere. */
export const CHECKOUT_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** Expiry is derived from the clock, so no sweeper is needed and the answer is never stale. */
export function checkoutStatus(c: { status: string; createdAt: Date }, now: Date) {
  if (c.status === 'pending' && now.getTime() - c.createdAt.getTime() >= CHECKOUT_LIFETIME_MS) return 'expired';
  return c.status as 'pending' | 'processing' | 'completed' | 'expired';
}

/** A production checkout that nothing can charge would only strand the buyer: refuse it up front. */
export function requirePaymentProcessor(mode: Mode) {
  const processor = paymentProcessorFor(mode);
  if (!processor) {
    throw new AppError(
      'unavailable',
      'No payment processor is configured for the production environment, so this service cannot take payments there. Use the test environment, or plug a processor in (see src/modules/payments/processor.ts).',
    );
  }
  return processor;
}

export async function createCheckout(ctx: RequestContext, raw: unknown): Promise<CheckoutWithRelations> {
  const input = parseInput(createCheckoutSchema, raw);
  requirePaymentProcessor(ctx.mode);
  const product = await getPurchasableProduct(ctx, input.product_id);
  const problems: FieldIssue[] = [];
  const units = input.units ?? 1;

  if (input.custom_price !== undefined) {
    if (product.billingType !== 'onetime') problems.push({ path: ['custom_price'], message: 'is only supported for one-time products' });
    else if (product.payWhatYouWant && input.custom_price < product.price) {
      problems.push({ path: ['custom_price'], message: `must be at least the product's minimum price of ${product.price}` });
    }
  }
  const unitPrice = input.custom_price ?? product.price;
  if (unitPrice * units > MAX_AMOUNT) problems.push({ path: ['units'], message: `price × units must not exceed ${MAX_AMOUNT}` });
  if (input.custom_fields && input.custom_field) problems.push({ path: ['custom_field'], message: 'send either custom_fields or its deprecated alias custom_field, not both' });
  const extra = input.custom_fields ?? input.custom_field ?? [];
  extra.forEach((f, i) => {
    if (extra.findIndex((o) => o.key === f.key) !== i) problems.push({ path: ['custom_fields', i, 'key'], message: `duplicate key "${f.key}"` });
  });
  // Affiliate programmes are not part of this service yet, so no code can belong to an active affiliate.
  if (input.affiliate_code) problems.push({ path: ['affiliate_code'], message: `affiliate code ${input.affiliate_code} does not belong to an active affiliate of this store` });

  let customerId: string | null = null;
  if (input.customer?.id) {
    const customer = await ctx.db.customer.findFirst({ where: { id: input.customer.id, ...scope(ctx) }, select: { id: true } });
    if (!customer) problems.push({ path: ['customer', 'id'], message: `customer ${input.customer.id} does not exist` });
    else customerId = customer.id;
  }
  if (problems.length) throw new AppError('validation_failed', 'Validation failed', problems);
  const discount = input.discount_code ? await findRedeemableDiscount(ctx, input.discount_code, product) : null;

  const created = await ctx.db.checkout.create({
    data: {
      id: newId('checkout'),
      ...scope(ctx),
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
      affiliateCode: input.affiliate_code ?? null,
      apiKeyId: ctx.apiKeyId ?? null,
      createdAt: ctx.clock.now(),
    },
    include: PAYABLE_INCLUDE,
  });
  // A new checkout has no order or subscription yet: reading those relations would only cost.
  return { ...created, order: null, subscription: null };
}

/** A checkout of the caller's store; REST renders it with CHECKOUT_INCLUDE, GraphQL passes its own selection. */
export async function findCheckout(ctx: Pick<RequestContext, 'db' | 'storeId' | 'mode'>, id: string): Promise<CheckoutWithRelations>;
export async function findCheckout<Q extends { include?: P.CheckoutInclude; select?: P.CheckoutSelect }>(
  ctx: Pick<RequestContext, 'db' | 'storeId' | 'mode'>,
  id: string,
  query: Q,
): Promise<P.CheckoutGetPayload<Q>>;
export async function findCheckout(ctx: Pick<RequestContext, 'db' | 'storeId' | 'mode'>, id: string, query?: { include?: P.CheckoutInclude; select?: P.CheckoutSelect }) {
  const row = await ctx.db.checkout.findFirst({ ...(query ?? { include: CHECKOUT_INCLUDE }), where: { id, ...scope(ctx) } });
  if (!row) throw new AppError('not_found', `Checkout ${id} not found`);
  return row;
}

export async function retrieveCheckout(ctx: RequestContext, raw: unknown): Promise<CheckoutWithRelations> {
  const { checkout_id } = parseInput(retrieveCheckoutSchema, raw);
  return findCheckout(ctx, checkout_id);
}

/**
 * The hosted page's view of a checkout. The page has no API key: the checkout id (a ULID with
 * 80 random bits) is the capability, and the listener's environment must match.
 */
export async function findCheckoutForPage(db: RequestContext['db'], mode: Mode, id: string): Promise<CheckoutWithRelations | null> {
  if (!/^ch_[0-9A-Z]{26}$/.test(id)) return null;
  return db.checkout.findFirst({ where: { id, mode }, include: CHECKOUT_INCLUDE });
}

/** The same, with only what the payment form needs. */
export async function findPayableCheckoutForPage(db: RequestContext['db'], mode: Mode, id: string): Promise<PayableCheckout | null> {
  if (!/^ch_[0-9A-Z]{26}$/.test(id)) return null;
  return db.checkout.findFirst({ where: { id, mode }, include: PAYABLE_INCLUDE });
}

/** `product_url`: every visit opens a fresh checkout for the product, in the listener's environment. */
export async function openCheckoutForProduct(
  env: Pick<RequestContext, 'db' | 'mode' | 'clock' | 'baseUrl' | 'traceId' | 'caches'>,
  productId: string,
): Promise<CheckoutWithRelations | null> {
  const product = await env.db.product.findFirst({ where: { id: productId, mode: env.mode }, select: { storeId: true } });
  if (!product) return null;
  return createCheckout({ ...env, storeId: product.storeId, source: 'page' }, { product_id: productId });
}
