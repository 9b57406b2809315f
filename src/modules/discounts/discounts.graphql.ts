import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf, toApiInput } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { ProductNode } from '../products/products.graphql.js';
import { discountStatus } from './discounts.serializer.js';
import { DISCOUNT_DURATIONS, DISCOUNT_STATUSES, DISCOUNT_TYPES } from './discounts.schemas.js';
import { createDiscount, deleteDiscount, discountListFilter, findDiscount, retrieveDiscount } from './discounts.service.js';

const DiscountTypeEnum = builder.enumType('DiscountType', { values: DISCOUNT_TYPES });
const DiscountDurationEnum = builder.enumType('DiscountDuration', { values: DISCOUNT_DURATIONS });
const DiscountStatusEnum = builder.enumType('DiscountStatus', { values: DISCOUNT_STATUSES });

builder.prismaNode('Discount', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    code: t.exposeString('code', { description: 'Stored uppercased; buyers may type it in any case' }),
    type: t.field({ type: DiscountTypeEnum, select: { type: true }, resolve: (d) => d.type as (typeof DISCOUNT_TYPES)[number] }),
    amount: t.exposeInt('amount', { description: 'Fixed: minor units of `currency`; percentage: the whole percent' }),
    percentage: t.int({ nullable: true, select: { type: true, amount: true }, resolve: (d) => (d.type === 'percentage' ? d.amount : null) }),
    currency: t.exposeString('currency', { nullable: true, description: 'Fixed discounts only' }),
    status: t.field({
      type: DiscountStatusEnum,
      description: '`expired` is derived from expiryDate at the time of the request',
      select: { status: true, expiryDate: true },
      resolve: (d, _a, ctx) => discountStatus(d, ctx.core.clock.now()),
    }),
    expiryDate: t.expose('expiryDate', { type: 'DateTime', nullable: true }),
    maxRedemptions: t.exposeInt('maxRedemptions', { nullable: true }),
    redeemCount: t.exposeInt('timesRedeemed'),
    duration: t.field({ type: DiscountDurationEnum, select: { duration: true }, resolve: (d) => d.duration as (typeof DISCOUNT_DURATIONS)[number] }),
    durationInMonths: t.exposeInt('durationInMonths', { nullable: true }),
    appliesToProducts: t.field({
      type: [ProductNode],
      description: 'Empty: the discount applies to every product of the store',
      select: (_args, _ctx, nestedSelection) => ({ products: { select: { product: nestedSelection(true) } } }),
      resolve: (d) => d.products.map((p) => p.product),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  discounts: t.prismaConnection({
    type: 'Discount',
    cursor: 'id',
    description: "The store's discounts in this environment, newest first",
    args: {
      status: t.arg({ type: DiscountStatusEnum }),
      type: t.arg({ type: DiscountTypeEnum }),
      productId: t.arg.id({ description: 'Discounts that apply to this product (including those for every product)' }),
    },
    totalCount: (_p, args, ctx) => ctx.core.db.discount.count({ where: listFilter(ctx.core, args) }),
    resolve: (query, _p, args, ctx) =>
      ctx.core.db.discount.findMany({ ...query, where: listFilter(ctx.core, args), orderBy: { id: 'desc' } }),
  }),
  discount: t.prismaField({
    type: 'Discount',
    description: 'A discount by /v1 id (disc_…), global id, or code (any case)',
    args: { id: t.arg.id(), code: t.arg.string() },
    resolve: async (query, _p, args, ctx) => {
      const found = await retrieveDiscount(ctx.core, {
        discount_id: args.id ? apiIdOf(String(args.id), 'Discount') : undefined,
        discount_code: args.code ?? undefined,
      });
      return findDiscount(ctx.core, found.id, query);
    },
  }),
}));

function listFilter(
  core: Parameters<typeof discountListFilter>[0],
  args: { status?: (typeof DISCOUNT_STATUSES)[number] | null; type?: (typeof DISCOUNT_TYPES)[number] | null; productId?: string | number | null },
) {
  return discountListFilter(core, {
    status: args.status ?? undefined,
    type: args.type ?? undefined,
    product_id: args.productId != null ? apiIdOf(String(args.productId), 'Product') : undefined,
  });
}

const CreateDiscountInput = builder.inputType('CreateDiscountInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    code: t.string({ description: 'Generated (8 characters) when absent' }),
    type: t.field({ type: DiscountTypeEnum, required: true }),
    amount: t.int({ description: 'Fixed discounts: minor units of currency' }),
    currency: t.string({ description: 'Fixed discounts only' }),
    percentage: t.int({ description: 'Percentage discounts: 1 to 100' }),
    expiryDate: t.field({ type: 'DateTime' }),
    maxRedemptions: t.int(),
    duration: t.field({ type: DiscountDurationEnum, required: true }),
    durationInMonths: t.int({ description: 'Required for, and only for, duration repeating' }),
    appliesToProducts: t.idList({ description: 'Product ids (/v1 or global); empty or absent: every product' }),
  }),
});

builder.mutationFields((t) => ({
  createDiscount: t.prismaField({
    type: 'Discount',
    args: { input: t.arg({ type: CreateDiscountInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      // On create, an explicit null means the same as leaving the field out.
      const input = Object.fromEntries(Object.entries(toApiInput(args.input) as Record<string, unknown>).filter(([, v]) => v !== null));
      const created = await createDiscount(ctx.core, {
        ...input,
        // The shared schema reads the /v1 wire forms: an ISO string and /v1 product ids.
        ...(args.input.expiryDate ? { expiry_date: args.input.expiryDate.toISOString() } : {}),
        ...(args.input.appliesToProducts ? { applies_to_products: args.input.appliesToProducts.map((id) => apiIdOf(String(id), 'Product')) } : {}),
      });
      return findDiscount(ctx.core, created.id, query);
    },
  }),
  deleteDiscount: t.prismaField({
    type: 'Discount',
    description: 'Soft delete: the discount stays readable and can no longer be redeemed',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const deleted = await deleteDiscount(ctx.core, { id: apiIdOf(String(args.id), 'Discount') });
      return findDiscount(ctx.core, deleted.id, query);
    },
  }),
}));
