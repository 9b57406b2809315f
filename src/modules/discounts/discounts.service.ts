import { randomInt } from 'node:crypto';
import type { Discount, Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction } from '../../db/tenant.js';
import { AppError, invalidField, orNotFound, type ErrorCode } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { minOf, percentOf } from '../../lib/money.js';
import { listing } from '../../db/listing.js';
import type {
  CreateDiscountInput,
  DiscountFilter,
  DiscountIdInput,
  DiscountStatus,
  RetrieveDiscountInput,
  SearchDiscountsInput,
} from './discounts.schemas.js';

export { discountStatus } from './discounts.rules.js';

/** What the /v1 discount shape embeds: the ids of the products it is limited to. */
export const DISCOUNT_INCLUDE = { products: { select: { productId: true } } } satisfies P.DiscountInclude;

export type DiscountWithProducts = P.DiscountGetPayload<{ include: typeof DISCOUNT_INCLUDE }>;

type DiscountSelection = { include?: P.DiscountInclude; select?: P.DiscountSelect };

/** Codes are compared case-insensitively: buyers type them, so they are stored uppercased. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();

// No 0/O, 1/I/L: generated codes are read off screens and typed in by hand.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
function generateCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export async function createDiscount(ctx: RequestContext, input: CreateDiscountInput): Promise<DiscountWithProducts> {
  const now = ctx.clock.now();
  const expiryDate = input.expiry_date ? new Date(input.expiry_date) : null;
  // A discount that is expired on creation could never be redeemed; that is a mistake, not a wish.
  if (expiryDate && expiryDate.getTime() <= now.getTime()) throw invalidField(['expiry_date'], 'must be in the future');

  const productIds = [...new Set(input.applies_to_products)];
  if (productIds.length) {
    const found = await db(ctx).product.findMany({ where: { id: { in: productIds } }, select: { id: true } });
    const known = new Set(found.map((p) => p.id));
    const issues = input.applies_to_products.flatMap((id, index) =>
      known.has(id) ? [] : [{ path: ['applies_to_products', index], message: `product ${id} not found` }],
    );
    if (issues.length) throw new AppError('validation_failed', 'Validation failed', issues);
  }

  const row = (code: string) => ({
    id: newId('discount'),
    name: input.name,
    code,
    type: input.type,
    amount: input.type === 'fixed' ? input.amount! : null,
    percentage: input.type === 'percentage' ? input.percentage! : null,
    currency: input.type === 'fixed' ? input.currency! : null,
    duration: input.duration,
    durationInMonths: input.duration === 'repeating' ? input.duration_in_months! : null,
    expiryDate,
    maxRedemptions: input.max_redemptions ?? null,
  });

  return inTransaction(ctx, async (tx) => {
    // Insert-or-skip (ON CONFLICT DO NOTHING): a taken code skips the row instead of failing the
    // statement, which would end the whole transaction and leave no way to try another code.
    const insert = async (code: string) => {
      const data = row(code);
      const { count } = await db(tx).discount.createMany({ data: [data], skipDuplicates: true });
      return count === 1 ? data.id : null;
    };
    let id: string | null = null;
    if (input.code !== undefined) {
      const code = normalizeCode(input.code);
      id = await insert(code);
      if (!id) {
        throw new AppError('already_exists', `A discount with code ${code} already exists`, [
          { path: ['code'], message: `a discount with code ${code} already exists` },
        ]);
      }
    }
    // 31^8 codes: a collision is rare, several in a row means something else is wrong.
    for (let attempt = 0; !id; attempt++) {
      if (attempt === 5) throw new Error('could not generate an unused discount code in 5 attempts');
      id = await insert(generateCode());
    }
    const discountId = id;
    if (productIds.length) await db(tx).discountProduct.createMany({ data: productIds.map((productId) => ({ discountId, productId })) });
    return db(tx).discount.findUniqueOrThrow({ where: { id: discountId }, include: DISCOUNT_INCLUDE });
  });
}

/** The discount a retrieve names: by id, by code (any case), or both. */
function lookupWhere(input: { discount_id?: string; discount_code?: string }): P.DiscountWhereInput {
  return {
    ...(input.discount_id ? { id: input.discount_id } : {}),
    ...(input.discount_code ? { code: normalizeCode(input.discount_code) } : {}),
  };
}

/**
 * By id or code (any case), with the caller's selection (GraphQL) or the /v1 shape; null when
 * the store has no such discount in this environment (or neither is given).
 */
export async function findDiscount(
  ctx: RequestContext,
  input: { discount_id?: string; discount_code?: string },
  selection: DiscountSelection = { include: DISCOUNT_INCLUDE },
) {
  if (!input.discount_id && !input.discount_code) return null;
  return db(ctx).discount.findFirst({ ...selection, where: lookupWhere(input) });
}

export async function findDiscountOrThrow(ctx: RequestContext, input: RetrieveDiscountInput): Promise<DiscountWithProducts> {
  return orNotFound(db(ctx).discount.findFirst({ where: lookupWhere(input), include: DISCOUNT_INCLUDE }), 'Discount', input.discount_id ?? input.discount_code);
}

/** Status filters follow the status shown on the wire (`discountStatus`), which derives `expired` from the clock. */
function statusFilter(status: DiscountStatus | undefined, now: Date): P.DiscountWhereInput {
  switch (status) {
    case undefined:
      return {};
    case 'deleted':
      return { status: 'deleted' };
    case 'expired':
      return { status: { not: 'deleted' }, expiryDate: { lte: now } };
    case 'active':
      return { status: { not: 'deleted' }, OR: [{ expiryDate: null }, { expiryDate: { gt: now } }] };
  }
}

/** The store's discounts, newest first, by status (as of the context clock), type, product and creation time. */
export function discountListing(ctx: RequestContext, filter: DiscountFilter) {
  const where: P.DiscountWhereInput = {
    ...statusFilter(filter.status, ctx.clock.now()),
    ...(filter.type ? { type: filter.type } : {}),
    // A discount with no products applies to every product, so it matches any product filter.
    ...(filter.product_id ? { AND: [{ OR: [{ products: { none: {} } }, { products: { some: { productId: filter.product_id } } }] }] } : {}),
    ...(filter.created_after || filter.created_before
      ? { createdAt: { ...(filter.created_after ? { gt: filter.created_after } : {}), ...(filter.created_before ? { lt: filter.created_before } : {}) } }
      : {}),
  };
  return listing(db(ctx).discount, where, { id: 'desc' });
}

export function searchDiscounts(ctx: RequestContext, input: SearchDiscountsInput) {
  return discountListing(ctx, input).page(input, { include: DISCOUNT_INCLUDE });
}

/**
 * Soft delete: the row stays readable by id (orders and subscriptions point at it) and can no
 * longer be redeemed. Its code stays taken, so a code a buyer once used never silently starts
 * meaning a different discount. Deleting twice answers the deleted discount again.
 */
export async function deleteDiscount(ctx: RequestContext, input: DiscountIdInput): Promise<DiscountWithProducts> {
  // Writes only the status, and only while not deleted: nothing else of the row is read back into it.
  await db(ctx).discount.updateMany({ where: { id: input.id, status: { not: 'deleted' } }, data: { status: 'deleted' } });
  return orNotFound(db(ctx).discount.findUnique({ where: { id: input.id }, include: DISCOUNT_INCLUDE }), 'Discount', input.id);
}

// ---------------------------------------------------------------------------
// Used by checkout completion
// ---------------------------------------------------------------------------

const rejectCode = (code: ErrorCode, message: string) => invalidField(['discount_code'], message, code);

/**
 * The discount a buyer's code names, if it may be applied to this product now; otherwise a 400
 * on `discount_code` whose code says why. This is a pre-check for a friendly answer; the
 * redemption itself is taken by `reserveRedemption`, which re-checks the limit atomically.
 */
export async function findRedeemableDiscount(
  ctx: RequestContext,
  code: string,
  product: { id: string; currency: string },
): Promise<DiscountWithProducts> {
  const normalized = normalizeCode(code);
  const d = await db(ctx).discount.findFirst({ where: { code: normalized }, include: DISCOUNT_INCLUDE });
  if (!d) throw rejectCode('discount_invalid', `discount code ${normalized} is not valid`);
  if (d.status === 'deleted') throw rejectCode('discount_invalid', `discount code ${normalized} is no longer available`);
  if (d.expiryDate && d.expiryDate.getTime() <= ctx.clock.now().getTime()) throw rejectCode('discount_expired', `discount code ${normalized} has expired`);
  if (d.products.length && !d.products.some((p) => p.productId === product.id)) {
    throw rejectCode('discount_not_applicable', `discount code ${normalized} does not apply to this product`);
  }
  if (d.type === 'fixed' && d.currency !== product.currency) {
    throw rejectCode('discount_not_applicable', `discount code ${normalized} is in ${d.currency} and cannot be applied to a price in ${product.currency}`);
  }
  if (d.maxRedemptions !== null && d.timesRedeemed >= d.maxRedemptions) {
    throw rejectCode('discount_exhausted', `discount code ${normalized} has reached its maximum number of redemptions`);
  }
  return d;
}

/**
 * The amount taken off `subTotal`, in minor units. A percentage rounds once, half away from
 * zero (src/lib/money.ts); a fixed discount never takes off more than the subtotal.
 */
export function discountAmountFor(d: Pick<Discount, 'id' | 'type' | 'amount' | 'percentage'>, subTotal: bigint): bigint {
  if (subTotal <= 0n) return 0n;
  if (d.type === 'percentage') {
    if (d.percentage === null) throw new Error(`percentage discount ${d.id} has no percentage`);
    return minOf(subTotal, percentOf(subTotal, d.percentage));
  }
  if (d.amount === null) throw new Error(`fixed discount ${d.id} has no amount`);
  return minOf(d.amount, subTotal);
}

/**
 * Takes one redemption if one is left, in a single conditional UPDATE: active, not expired at
 * the context's clock, and `maxRedemptions IS NULL OR timesRedeemed < maxRedemptions`.
 * Concurrent checkouts each re-evaluate the condition against the committed count (PostgreSQL
 * re-checks the WHERE after waiting on the row lock), so the maximum can never be passed. In
 * the caller's transaction, a rollback gives the redemption back.
 */
export async function reserveRedemption(ctx: RequestContext, discountId: string): Promise<boolean> {
  const now = ctx.clock.now();
  const { count } = await db(ctx).discount.updateMany({
    where: {
      id: discountId,
      status: 'active',
      AND: [
        { OR: [{ expiryDate: null }, { expiryDate: { gt: now } }] },
        { OR: [{ maxRedemptions: null }, { timesRedeemed: { lt: db(ctx).discount.fields.maxRedemptions } }] },
      ],
    },
    data: { timesRedeemed: { increment: 1 }, updatedAt: now },
  });
  return count === 1;
}

/** Gives back a redemption taken by `reserveRedemption` (a checkout that did not complete); never below 0. */
export async function releaseRedemption(ctx: RequestContext, discountId: string): Promise<void> {
  await db(ctx).discount.updateMany({
    where: { id: discountId, timesRedeemed: { gt: 0 } },
    data: { timesRedeemed: { decrement: 1 }, updatedAt: ctx.clock.now() },
  });
}
