import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { LicenseNode } from '../licenses/licenses.graphql.js';
import { CUSTOM_FIELD_TYPES } from '../products/products.schemas.js';
import { createCheckoutOp } from './checkouts.operations.js';
import { checkoutUrl } from './checkouts.serializer.js';
import { checkoutStatus, findCheckout } from './checkouts.service.js';

const CheckoutStatusEnum = apiEnum('CheckoutStatus', ['pending', 'processing', 'completed', 'expired'] as const, 'Where a checkout is: open, being paid, paid, or past its 24 hours unpaid', {
  pending: 'Open: waiting for the buyer to pay (a declined card leaves it open)',
  processing: 'A payment is under way',
  completed: 'Paid: the order and customer exist, and the subscription of a recurring product',
  expired: 'Not paid within 24 hours of its creation; can no longer be paid',
});

builder.prismaNode('Checkout', {
  id: { field: 'id', description: 'The /v1 id (ch_…)' },
  nullable: true,
  description: 'A hosted payment page for one product: send the buyer to checkoutUrl; once paid it links the order, customer and subscription',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    status: t.field({
      type: CheckoutStatusEnum,
      description: 'A pending checkout is `expired` 24 hours after it was created',
      select: { status: true, createdAt: true },
      resolve: (c, _a, ctx) => checkoutStatus(c, ctx.core.clock.now()),
    }),
    requestId: t.exposeString('requestId', { nullable: true, description: 'Your own reference, echoed back in the success redirect; null when none was given' }),
    units: t.exposeInt('units', { description: 'Quantity bought' }),
    customPrice: t.field({ type: 'MinorUnits', nullable: true, description: 'Per-unit price the seller fixed for this checkout, in minor units; null: the product’s price', resolve: (c) => c.customPrice }),
    checkoutUrl: t.string({ description: 'The hosted payment page (/checkout/ch_…) to send the buyer to', select: { id: true }, resolve: (c, _a, ctx) => checkoutUrl(ctx.core.baseUrl, c.id) }),
    successUrl: t.exposeString('successUrl', { nullable: true, description: 'Where the buyer goes after paying; null: the product’s defaultSuccessUrl, else a receipt page' }),
    metadata: t.expose('metadata', { type: 'JSON', description: 'Your key-value pairs, as given at creation' }),
    product: t.relation('product', { description: 'The product bought' }),
    customer: t.relation('customer', { nullable: true, description: 'The buyer: the customer given at creation, else the one the payment found or created; null before' }),
    order: t.relation('order', { nullable: true, description: 'The order the payment created; null until paid' }),
    subscription: t.relation('subscription', { nullable: true, description: 'The subscription a recurring product’s payment started; null otherwise' }),
    discount: t.relation('discount', { nullable: true, description: 'The discount applied (discountCode); null without one' }),
    licenseKeys: t.field({
      type: [LicenseNode],
      description: 'License keys the purchase issued',
      select: (_a, _c, nested) => ({ order: { select: { licenses: nested(true) } } }),
      resolve: (c) => [...(c.order?.licenses ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the checkout was opened; it expires 24 hours later unless paid' }),
  }),
});

lookupQuery('checkout', { type: 'Checkout', what: 'A checkout by id (ch_…)', find: findCheckout });

const CustomFieldTypeEnum = apiEnum('CheckoutCustomFieldType', CUSTOM_FIELD_TYPES, 'What the buyer fills in: a text box or a checkbox');

const CreateCheckoutInput = builder.inputType('CreateCheckoutInput', {
  description: 'A checkout for one product; every field but productId is optional',
  fields: (t) => ({
    productId: t.id({ required: true, description: 'The product to sell (prod_…), active' }),
    requestId: t.string({ description: 'Your reference (up to 200 characters), echoed back in the success redirect' }),
    units: t.int({ description: 'Quantity, 1 to 10000; default 1' }),
    customPrice: t.field({ type: 'MinorUnits', description: 'Per-unit price override in minor units; one-time products only' }),
    discountCode: t.string({ description: 'A discount code to apply (any case); refused when it does not apply' }),
    affiliateCode: t.string({ description: "An affiliate's referral code: the sale earns them a commission; refused when no active affiliate of this store has it" }),
    customer: t.field({
      description: 'Who is buying, when you know: an existing customer or details to pre-fill',
      type: builder.inputType('CheckoutCustomerInput', {
        description: 'The buyer as you know them',
        fields: (f) => ({
          id: f.id({ description: 'An existing customer (cust_…)' }),
          email: f.field({ type: 'EmailAddress', description: 'Pre-fills the page’s e-mail' }),
          name: f.string({ description: 'Pre-fills the page’s name, up to 200 characters' }),
        }),
      }),
    }),
    customFields: t.field({
      description: 'Questions for this checkout only, asked after the product’s own (at most 3, keys unique)',
      type: [
        builder.inputType('CheckoutCustomFieldInput', {
          description: 'A question the checkout page asks the buyer',
          fields: (f) => ({
            type: f.field({ type: CustomFieldTypeEnum, required: true, description: 'A text box or a checkbox' }),
            key: f.string({ required: true, description: 'Names the answer: 1 to 64 letters, digits, - or _' }),
            label: f.string({ required: true, description: 'What the page shows above the field, up to 200 characters' }),
            optional: f.boolean({ description: 'The buyer may leave it empty; default false' }),
            text: f.field({
              description: 'Text fields: length bounds',
              type: builder.inputType('CheckoutTextFieldInput', {
                description: 'Length bounds of a text field',
                fields: (g) => ({ maxLength: g.int({ description: 'Most characters, 1 to 1000' }), minLength: g.int({ description: 'Fewest characters, 0 to 1000, not above maxLength' }) }),
              }),
            }),
            checkbox: f.field({
              description: 'Checkbox fields: the text beside the box',
              type: builder.inputType('CheckoutCheckboxFieldInput', {
                description: 'The text of a checkbox field',
                fields: (g) => ({ label: g.string({ description: 'Text beside the box, up to 500 characters; may contain a Markdown link' }) }),
              }),
            }),
          }),
        }),
      ],
    }),
    successUrl: t.string({ description: 'Where the buyer goes after paying (http or https URL); default: the product’s defaultSuccessUrl' }),
    metadata: t.field({ type: 'JSON', description: 'Your key-value pairs (at most 50 keys; string, number, boolean values)' }),
  }),
});

operationMutation('createCheckout', {
  op: createCheckoutOp,
  input: CreateCheckoutInput,
  payload: payloadType('CreateCheckoutPayload', 'checkout', 'Checkout', 'The checkout; send the buyer to its checkoutUrl'),
  description: 'Opens a hosted checkout for a product',
  toInput: toApiInput,
});
