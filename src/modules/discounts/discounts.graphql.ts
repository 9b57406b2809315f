import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
import { ProductNode } from '../products/products.graphql.js';
import { createDiscountOp, deleteDiscountOp } from './discounts.operations.js';
import { discountStatus } from './discounts.rules.js';
import { DISCOUNT_DURATIONS, DISCOUNT_STATUSES, DISCOUNT_TYPES, discountFilterSchema } from './discounts.schemas.js';
import { discountListing, findDiscount } from './discounts.service.js';

const DiscountTypeEnum = apiEnum('DiscountType', DISCOUNT_TYPES, 'How a discount lowers the price', {
  percentage: 'A whole percent of the price (percentage)',
  fixed: 'A fixed amount off, in one currency (amount)',
});
const DiscountDurationEnum = apiEnum('DiscountDuration', DISCOUNT_DURATIONS, 'For how many invoices of a subscription the discount applies', {
  forever: 'Every invoice',
  once: 'The first invoice only',
  repeating: 'The invoices of the first durationInMonths months',
});
const DiscountStatusEnum = apiEnum('DiscountStatus', DISCOUNT_STATUSES, '`expired` is derived from the expiry date at the time of the request', {
  active: 'Can be redeemed (while redemptions are left)',
  expired: 'Its expiryDate has passed',
  deleted: 'Deleted: readable, no longer redeemable',
});

builder.prismaNode('Discount', {
  id: { field: 'id', description: 'The /v1 id (disc_…)' },
  nullable: true,
  description: 'A discount code buyers enter at checkout: a percentage or a fixed amount off, for some or all products',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { description: 'Your name for the discount' }),
    code: t.exposeString('code', { description: 'Stored uppercased; buyers may type it in any case' }),
    type: t.field({ type: DiscountTypeEnum, description: 'Percentage or fixed amount', select: { type: true }, resolve: (d) => d.type as (typeof DISCOUNT_TYPES)[number] }),
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
    expiryDate: t.expose('expiryDate', { type: 'DateTime', nullable: true, description: 'From this instant the discount is expired; null: it never expires' }),
    maxRedemptions: t.exposeInt('maxRedemptions', { nullable: true, description: 'Completed checkouts it may be used in; null: unlimited' }),
    redeemCount: t.exposeInt('timesRedeemed', { description: 'Completed checkouts that used it' }),
    duration: t.field({ type: DiscountDurationEnum, description: 'For how many invoices of a subscription it applies', select: { duration: true }, resolve: (d) => d.duration as (typeof DISCOUNT_DURATIONS)[number] }),
    durationInMonths: t.exposeInt('durationInMonths', { nullable: true, description: 'Duration repeating: months it applies; null otherwise' }),
    appliesToProducts: t.field({
      type: [ProductNode],
      description: 'Empty: the discount applies to every product of the store',
      select: (_args, _ctx, nestedSelection) => ({ products: { select: { product: nestedSelection(true) } } }),
      resolve: (d) => d.products.map((p) => p.product),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the discount was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the discount last changed' }),
  }),
});

listQuery('discounts', {
  type: 'Discount',
  description: "The store's discounts in this environment, newest first",
  args: (arg) => ({
    status: arg({ type: DiscountStatusEnum, description: 'Only discounts of this status (as of now)' }),
    type: arg({ type: DiscountTypeEnum, description: 'Only discounts of this type' }),
    productId: arg.id({ description: 'Discounts that apply to this product (including those for every product)' }),
  }),
  listing: (ctx, args) => discountListing(ctx, parseInput(discountFilterSchema, toApiInput(args))),
});

builder.queryField('discount', (t) =>
  t.prismaField({
    type: 'Discount',
    nullable: true,
    description: 'A discount by id (disc_…) or code (any case); null when this store has none such in this environment',
    args: { id: t.arg.id({ description: 'The /v1 id (disc_…)' }), code: t.arg.string({ description: 'The code, in any case; with an id too, both must match' }) },
    resolve: (query, _p, args, ctx) =>
      findDiscount(ctx.core, { discount_id: args.id == null ? undefined : String(args.id), discount_code: args.code ?? undefined }, query),
  }),
);

const CreateDiscountInput = builder.inputType('CreateDiscountInput', {
  description: 'A new discount code',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Your name for it, up to 200 characters' }),
    code: t.string({ description: 'Generated (8 characters) when absent' }),
    type: t.field({ type: DiscountTypeEnum, required: true, description: 'percentage (with percentage) or fixed (with amount and currency)' }),
    amount: t.field({ type: 'MinorUnits', description: 'Fixed discounts: minor units of currency' }),
    currency: t.field({ type: 'Currency', description: 'Fixed discounts only' }),
    percentage: t.int({ description: 'Percentage discounts: 1 to 100' }),
    expiryDate: t.field({ type: 'DateTime', description: 'From this instant it can no longer be redeemed; absent: never expires' }),
    maxRedemptions: t.int({ description: 'Completed checkouts it may be used in; absent: unlimited' }),
    duration: t.field({ type: DiscountDurationEnum, required: true, description: 'For how many invoices of a subscription it applies' }),
    durationInMonths: t.int({ description: 'Required for, and only for, duration repeating' }),
    appliesToProducts: t.idList({ description: 'Product ids (prod_…); empty or absent: every product' }),
  }),
});

const DeleteDiscountInput = builder.inputType('DeleteDiscountInput', { description: 'The discount to delete', fields: (t) => ({ id: t.id({ required: true, description: 'The discount (disc_…)' }) }) });

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
