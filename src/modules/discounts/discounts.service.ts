import { randomInt } from 'node:crypto';
import type { z } from 'zod';
import { Prisma as P, type Discount } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { AppError, invalidField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { createDiscountSchema, deleteDiscountSchema, retrieveDiscountSchema, searchDiscountsSchema } from './discounts.schemas.js';
import type { DiscountWithProducts } from './discounts.serializer.js';

export type { DiscountWithProducts } from './discounts.serializer.js';

const withProducts = { products: { select: { productId: true } } } satisfies P.DiscountInclude;

/** Codes are compared case-insensitively: buyers type them, so they are stored uppercased. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();

// No 0/O, 1/I/L: generated codes are read off screens and typed in by hand.
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
function generateCode(): string {
  let code = '';
  for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

const isUniqueViolation = (err: unknown) => err instanceof P.PrismaClientKnownRequestError && err.code === 'P2002';

export async function createDiscount(ctx: RequestContext, raw: unknown): Promise<DiscountWithProducts> {
  const input = parseInput(createDiscountSchema, raw);
  const now = ctx.clock.now();
  const expiryDate = input.expiry_date ? new Date(input.expiry_date) : null;
  // A discount that is expired on creation could never be redeemed; that is a mistake, not a wish.
  if (expiryDate && expiryDate.getTime() <= now.getTime()) throw invalidField(['expiry_date'], 'must be in the future');

  const productIds = [...new Set(input.applies_to_products)];
  if (productIds.length) {
    const found = await ctx.db.product.findMany({ where: { id: { in: productIds }, ...scope(ctx) }, select: { id: true } });
    const known = new Set(found.map((p) => p.id));
    const issues = input.applies_to_products.flatMap((id, index) =>
      known.has(id) ? [] : [{ path: ['applies_to_products', index], message: `product ${id} not found` }],
    );
    if (issues.length) throw new AppError('validation_failed', 'Validation failed', issues);
  }

  const data = (code: string): P.DiscountCreateInput => ({
    id: newId('discount'),
    ...scope(ctx),
    name: input.name,
    code,
    type: input.type,
    amount: input.type === 'percentage' ? input.percentage! : input.amount!,
    currency: input.type === 'fixed' ? input.currency! : null,
    duration: input.duration,
    durationInMonths: input.duration === 'repeating' ? input.duration_in_months! : null,
    expiryDate,
    maxRedemptions: input.max_redemptions ?? null,
    products: { create: productIds.map((productId) => ({ product: { connect: { id: productId } } })) },
  });

  if (input.code !== undefined) {
    const code = normalizeCode(input.code);
    try {
      return await ctx.db.discount.create({ data: data(code), include: withProducts });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      throw new AppError('already_exists', `A discount with code ${code} already exists`, [
        { path: ['code'], message: `a discount with code ${code} already exists` },
      ]);
    }
  }
  // 31^8 codes: a collision is rare, several in a row means something else is wrong.
  for (let attempt = 0; ; attempt++) {
    try {
      return await ctx.db.discount.create({ data: data(generateCode()), include: withProducts });
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 4) throw err;
    }
  }
}

export async function findDiscount<Q extends { include?: P.DiscountInclude; select?: P.DiscountSelect }>(
  ctx: RequestContext,
  id: string,
  query?: Q,
) {
  const row = await ctx.db.discount.findFirst({ ...(query ?? {}), where: { id, ...scope(ctx) } });
  if (!row) throw notFound('Discount', id);
  return row;
}

export async function retrieveDiscount(ctx: RequestContext, raw: unknown): Promise<DiscountWithProducts> {
  const q = parseInput(retrieveDiscountSchema, raw);
  const row = await ctx.db.discount.findFirst({
    where: {
      ...scope(ctx),
      ...(q.discount_id ? { id: q.discount_id } : {}),
      ...(q.discount_code ? { code: normalizeCode(q.discount_code) } : {}),
    },
    include: withProducts,
  });
  if (!row) throw notFound('Discount', q.discount_id ?? q.discount_code);
  return row;
}

/** Status filters follow the status shown on the wire, which derives `expired` from the clock. */
function statusFilter(status: 'active' | 'expired' | 'deleted' | undefined, now: Date): P.DiscountWhereInput {
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

export type DiscountFilters = Partial<Pick<z.output<typeof searchDiscountsSchema>, 'status' | 'type' | 'product_id' | 'created_after' | 'created_before'>>;

export function discountListFilter(ctx: RequestContext, filters: DiscountFilters = {}): P.DiscountWhereInput {
  return {
    ...scope(ctx),
    ...statusFilter(filters.status, ctx.clock.now()),
    ...(filters.type ? { type: filters.type } : {}),
    // A discount with no products applies to every product, so it matches any product filter.
    ...(filters.product_id ? { AND: [{ OR: [{ products: { none: {} } }, { products: { some: { productId: filters.product_id } } }] }] } : {}),
    ...(filters.created_after || filters.created_before
      ? { createdAt: { ...(filters.created_after ? { gt: filters.created_after } : {}), ...(filters.created_before ? { lt: filters.created_before } : {}) } }
      : {}),
  };
}

export async function searchDiscounts(ctx: RequestContext, raw: unknown) {
  const input = parseInput(searchDiscountsSchema, raw);
  const where = discountListFilter(ctx, input);
  const [items, total] = await Promise.all([
    ctx.db.discount.findMany({ where, include: withProducts, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.discount.count({ where }),
  ]);
  return toPage(items, total, input);
}

/**
 * Soft delete: the row stays readable by id (orders and subscriptions point at it) and can no
 * longer be redeemed. Its code stays taken, so a code a buyer once used never silently starts
 * meaning a different discount.
 */
export async function deleteDiscount(ctx: RequestContext, raw: unknown): Promise<DiscountWithProducts> {
  const { id } = parseInput(deleteDiscountSchema, raw);
  const current = await ctx.db.discount.findFirst({ where: { id, ...scope(ctx) }, include: withProducts });
  if (!current) throw notFound('Discount', id);
  if (current.status === 'deleted') return current;
  return ctx.db.discount.update({ where: { id: current.id }, data: { status: 'deleted' }, include: withProducts });
}

// ---------------------------------------------------------------------------
// Used by checkout completion
// ---------------------------------------------------------------------------

const rejectCode = (message: string) => new AppError('bad_request', message, [{ path: ['discount_code'], message }]);

/**
 * The discount a buyer's code names, if it may be applied to this product now. This is a
 * pre-check for a friendly 400; the redemption itself is taken by `reserveRedemption`, which
 * re-checks the limit atomically.
 */
export async function findRedeemableDiscount(
  ctx: RequestContext,
  code: string,
  product: { id: string; currency: string; billingType: string },
  db: P.TransactionClient = ctx.db,
): Promise<Discount & { products: { productId: string }[] }> {
  const normalized = normalizeCode(code);
  const d = await db.discount.findFirst({ where: { ...scope(ctx), code: normalized }, include: withProducts });
  if (!d) throw rejectCode(`discount code ${normalized} is not valid`);
  if (d.status === 'deleted') throw rejectCode(`discount code ${normalized} is no longer available`);
  if (d.expiryDate && d.expiryDate.getTime() <= ctx.clock.now().getTime()) throw rejectCode(`discount code ${normalized} has expired`);
  if (d.products.length && !d.products.some((p) => p.productId === product.id)) {
    throw rejectCode(`discount code ${normalized} does not apply to this product`);
  }
  if (d.type === 'fixed' && d.currency !== product.currency) {
    throw rejectCode(`discount code ${normalized} is in ${d.currency} and cannot be applied to a price in ${product.currency}`);
  }
  if (d.maxRedemptions !== null && d.timesRedeemed >= d.maxRedemptions) {
    throw rejectCode(`discount code ${normalized} has reached its maximum number of redemptions`);
  }
  return d;
}

/**
 * The amount taken off `subTotal`, in minor units. Percentages round half up in integer
 * arithmetic so that no float ever touches money; a fixed discount never makes the total negative.
 */
export function discountAmountFor(d: Discount, subTotal: number): number {
  if (subTotal <= 0) return 0;
  if (d.type === 'percentage') return Math.min(subTotal, Math.floor((subTotal * d.amount + 50) / 100));
  return Math.min(d.amount, subTotal);
}

/**
 * Takes one redemption if one is left, in a single conditional UPDATE: concurrent checkouts
 * each re-evaluate the condition against the committed count (PostgreSQL re-checks the WHERE
 * after waiting on the row lock), so the maximum can never be passed.
 */
export async function reserveRedemption(tx: P.TransactionClient, discountId: string, now: Date): Promise<boolean> {
  const updated = await tx.$executeRaw`
    UPDATE "Discount"
       SET "timesRedeemed" = "timesRedeemed" + 1, "updatedAt" = ${now}
     WHERE "id" = ${discountId}
       AND "status" = 'active'
       AND ("expiryDate" IS NULL OR "expiryDate" > ${now})
       AND ("maxRedemptions" IS NULL OR "timesRedeemed" < "maxRedemptions")`;
  return updated === 1;
}

/** Gives back a redemption taken by `reserveRedemption` (a checkout that did not complete). */
export async function releaseRedemption(tx: P.TransactionClient, discountId: string): Promise<void> {
  await tx.$executeRaw`
    UPDATE "Discount"
       SET "timesRedeemed" = "timesRedeemed" - 1
     WHERE "id" = ${discountId} AND "timesRedeemed" > 0`;
}
