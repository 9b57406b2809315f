import { apiEnum, builder, ModeEnum } from '../../graphql/builder.js';
import { lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { LicenseNode } from '../licenses/licenses.graphql.js';
import { CUSTOM_FIELD_TYPES } from '../products/products.schemas.js';
import { createCheckoutOp } from './checkouts.operations.js';
import { checkoutUrl } from './checkouts.serializer.js';
import { checkoutStatus, findCheckout } from './checkouts.service.js';

const CheckoutStatusEnum = apiEnum('CheckoutStatus', ['pending', 'processing', 'completed', 'expired'] as const);

builder.prismaNode('Checkout', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    status: t.field({
      type: CheckoutStatusEnum,
      description: 'A pending checkout is `expired` 24 hours after it was created',
      select: { status: true, createdAt: true },
      resolve: (c, _a, ctx) => checkoutStatus(c, ctx.core.clock.now()),
    }),
    requestId: t.exposeString('requestId', { nullable: true }),
    units: t.exposeInt('units'),
    customPrice: t.field({ type: 'MinorUnits', nullable: true, description: 'Per-unit price the seller fixed for this checkout', resolve: (c) => c.customPrice }),
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

lookupQuery('checkout', { type: 'Checkout', what: 'A checkout by id (ch_…)', find: findCheckout });

const CustomFieldTypeEnum = apiEnum('CheckoutCustomFieldType', CUSTOM_FIELD_TYPES);

const CreateCheckoutInput = builder.inputType('CreateCheckoutInput', {
  fields: (t) => ({
    productId: t.id({ required: true }),
    requestId: t.string(),
    units: t.int(),
    customPrice: t.field({ type: 'MinorUnits', description: 'Per-unit price override in minor units; one-time products only' }),
    discountCode: t.string(),
    customer: t.field({
      type: builder.inputType('CheckoutCustomerInput', { fields: (f) => ({ id: f.id(), email: f.field({ type: 'EmailAddress' }), name: f.string() }) }),
    }),
    customFields: t.field({
      type: [
        builder.inputType('CheckoutCustomFieldInput', {
          fields: (f) => ({
            type: f.field({ type: CustomFieldTypeEnum, required: true }),
            key: f.string({ required: true }),
            label: f.string({ required: true }),
            optional: f.boolean(),
            text: f.field({ type: builder.inputType('CheckoutTextFieldInput', { fields: (g) => ({ maxLength: g.int(), minLength: g.int() }) }) }),
            checkbox: f.field({ type: builder.inputType('CheckoutCheckboxFieldInput', { fields: (g) => ({ label: g.string() }) }) }),
          }),
        }),
      ],
    }),
    successUrl: t.string(),
    metadata: t.field({ type: 'JSON' }),
  }),
});

operationMutation('createCheckout', {
  op: createCheckoutOp,
  input: CreateCheckoutInput,
  payload: payloadType('CreateCheckoutPayload', 'checkout', 'Checkout', 'The checkout; send the buyer to its checkoutUrl'),
  description: 'Opens a hosted checkout for a product',
  toInput: toApiInput,
});
