import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf, toApiInput } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { LicenseNode } from '../licenses/licenses.graphql.js';
import { checkoutStatus, createCheckout, findCheckout } from './checkouts.service.js';
import { checkoutUrl } from './checkouts.serializer.js';

const CheckoutStatusEnum = builder.enumType('CheckoutStatus', { values: ['pending', 'processing', 'completed', 'expired'] as const });

builder.prismaNode('Checkout', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    status: t.field({
      type: CheckoutStatusEnum,
      description: 'A pending checkout is `expired` 24 hours after it was created',
      select: { status: true, createdAt: true },
      resolve: (c, _a, ctx) => checkoutStatus(c, ctx.core.clock.now()),
    }),
    requestId: t.exposeString('requestId', { nullable: true }),
    units: t.exposeInt('units'),
    customPrice: t.exposeInt('customPrice', { nullable: true }),
    checkoutUrl: t.string({ select: { id: true }, resolve: (c, _a, ctx) => checkoutUrl(ctx.core.baseUrl, c.id) }),
    successUrl: t.exposeString('successUrl', { nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    product: t.relation('product'),
    customer: t.relation('customer', { nullable: true }),
    order: t.relation('order', { nullable: true }),
    subscription: t.relation('subscription', { nullable: true }),
    discount: t.relation('discount', { nullable: true }),
    licenseKeys: t.field({
      type: [LicenseNode],
      description: 'License keys the purchase issued',
      select: (_a, _c, nested) => ({ order: { select: { licenses: nested(true) } } }),
      resolve: (c) => [...(c.order?.licenses ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  checkout: t.prismaField({
    type: 'Checkout',
    description: 'A checkout by /v1 id (ch_…) or global id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _p, args, ctx) => findCheckout(ctx.core, apiIdOf(String(args.id), 'Checkout'), query),
  }),
}));

const CheckoutCustomerInput = builder.inputType('CheckoutCustomerInput', {
  fields: (t) => ({ id: t.id(), email: t.string(), name: t.string() }),
});

const CheckoutCustomFieldInput = builder.inputType('CheckoutCustomFieldInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: 'text | checkbox' }),
    key: t.string({ required: true }),
    label: t.string({ required: true }),
    optional: t.boolean(),
    text: t.field({ type: builder.inputType('CheckoutTextFieldInput', { fields: (f) => ({ maxLength: f.int(), minLength: f.int() }) }) }),
    checkbox: t.field({ type: builder.inputType('CheckoutCheckboxFieldInput', { fields: (f) => ({ label: f.string() }) }) }),
  }),
});

const CreateCheckoutInput = builder.inputType('CreateCheckoutInput', {
  fields: (t) => ({
    productId: t.id({ required: true }),
    requestId: t.string(),
    units: t.int(),
    customPrice: t.int({ description: 'Per-unit price override in minor units; one-time products only' }),
    discountCode: t.string(),
    customer: t.field({ type: CheckoutCustomerInput }),
    customFields: t.field({ type: [CheckoutCustomFieldInput] }),
    successUrl: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

builder.mutationFields((t) => ({
  createCheckout: t.prismaField({
    type: 'Checkout',
    description: 'Opens a hosted checkout; send the buyer to its checkoutUrl',
    args: { input: t.arg({ type: CreateCheckoutInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const input = toApiInput(args.input) as Record<string, unknown>;
      const created = await createCheckout(ctx.core, {
        ...input,
        product_id: apiIdOf(String(args.input.productId), 'Product'),
        ...(args.input.customer?.id ? { customer: { ...(input.customer as object), id: apiIdOf(String(args.input.customer.id), 'Customer') } } : {}),
      });
      return findCheckout(ctx.core, created.id, query);
    },
  }),
}));
