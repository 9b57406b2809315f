import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
import { ProductNode } from '../products/products.graphql.js';
import { createDiscountOp, deleteDiscountOp } from './discounts.operations.js';
import { discountStatus } from './discounts.rules.js';
import { DISCOUNT_DURATIONS, DISCOUNT_STATUSES, DISCOUNT_TYPES, discountFilterSchema } from './discounts.schemas.js';
import { discountListing, findDiscount } from './discounts.service.js';

const DiscountTypeEnum = apiEnum('DiscountType', DISCOUNT_TYPES);
const DiscountDurationEnum = apiEnum('DiscountDuration', DISCOUNT_DURATIONS);
const DiscountStatusEnum = apiEnum('DiscountStatus', DISCOUNT_STATUSES, '`expired` is derived from the expiry date at the time of the request');

builder.prismaNode('Discount', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    code: t.exposeString('code', { description: 'Stored uppercased; buyers may type it in any case' }),
    type: t.field({ type: DiscountTypeEnum, select: { type: true }, resolve: (d) => d.type as (typeof DISCOUNT_TYPES)[number] }),
    amount: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Fixed discounts: the amount taken off, in `currency`; null for a percentage discount',
      select: { amount: true, currency: true },
      resolve: (d) => (d.amount === null || d.currency === null ? null : { amount: d.amount, currency: d.currency }),
    }),
    percentage: t.exposeInt('percentage', { nullable: true, description: 'Percentage discounts: the whole percent (1 to 100)' }),
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

listQuery('discounts', {
  type: 'Discount',
  description: "The store's discounts in this environment, newest first",
  args: (arg) => ({
    status: arg({ type: DiscountStatusEnum }),
    type: arg({ type: DiscountTypeEnum }),
    productId: arg.id({ description: 'Discounts that apply to this product (including those for every product)' }),
  }),
  listing: (ctx, args) => discountListing(ctx, parseInput(discountFilterSchema, toApiInput(args))),
});

builder.queryField('discount', (t) =>
  t.prismaField({
    type: 'Discount',
    nullable: true,
    description: 'A discount by id (disc_…) or code (any case); null when this store has none such in this environment',
    args: { id: t.arg.id(), code: t.arg.string() },
    resolve: (query, _p, args, ctx) =>
      findDiscount(ctx.core, { discount_id: args.id == null ? undefined : String(args.id), discount_code: args.code ?? undefined }, query),
  }),
);

const CreateDiscountInput = builder.inputType('CreateDiscountInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    code: t.string({ description: 'Generated (8 characters) when absent' }),
    type: t.field({ type: DiscountTypeEnum, required: true }),
    amount: t.field({ type: 'MinorUnits', description: 'Fixed discounts: minor units of currency' }),
    currency: t.field({ type: 'Currency', description: 'Fixed discounts only' }),
    percentage: t.int({ description: 'Percentage discounts: 1 to 100' }),
    expiryDate: t.field({ type: 'DateTime' }),
    maxRedemptions: t.int(),
    duration: t.field({ type: DiscountDurationEnum, required: true }),
    durationInMonths: t.int({ description: 'Required for, and only for, duration repeating' }),
    appliesToProducts: t.idList({ description: 'Product ids (prod_…); empty or absent: every product' }),
  }),
});

const DeleteDiscountInput = builder.inputType('DeleteDiscountInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

operationMutation('createDiscount', {
  op: createDiscountOp,
  input: CreateDiscountInput,
  payload: payloadType('CreateDiscountPayload', 'discount', 'Discount', 'The discount created'),
  description: 'Creates a percentage or fixed discount code',
});

operationMutation('deleteDiscount', {
  op: deleteDiscountOp,
  input: DeleteDiscountInput,
  payload: payloadType('DeleteDiscountPayload', 'discount', 'Discount', 'The deleted discount'),
  description: 'Soft delete: the discount stays readable and can no longer be redeemed',
});
