import { z } from 'zod';
import { toWireNumber } from '../../lib/money.js';
import { isoTimestamp, metadataField, modeField, wireAmount } from '../../lib/response-schemas.js';
import { customerEntity, serializeCustomer } from '../customers/customers.serializer.js';
import { appliedDiscountEntity, serializeAppliedDiscount } from '../discounts/discounts.serializer.js';
import { licenseEntity, serializeLicense } from '../licenses/licenses.serializer.js';
import { orderEntity, serializeOrder } from '../orders/orders.serializer.js';
import { productEntity, serializeProduct } from '../products/products.serializer.js';
import { CUSTOM_FIELD_TYPES } from '../products/products.schemas.js';
import { serializeSubscription, subscriptionEntity } from '../subscriptions/subscriptions.serializer.js';
import { mergeFields, productFieldsOf, serializeFields, type CheckoutField, type FieldValues } from './checkout-fields.js';
import { checkoutStatus, type CheckoutStatus, type CheckoutWithRelations } from './checkouts.service.js';

export const CHECKOUT_STATUSES = ['pending', 'processing', 'completed', 'expired'] as const satisfies readonly CheckoutStatus[];

/** A field of the checkout page, with the buyer's value once there is one (the client's CustomField). */
export const checkoutCustomField = z
  .object({
    type: z.enum(CUSTOM_FIELD_TYPES),
    key: z.string(),
    label: z.string(),
    optional: z.boolean(),
    text: z.object({ max_length: z.number().int().nullable(), minimum_length: z.number().int().nullable(), value: z.string().optional() }).optional(),
    checkbox: z.object({ label: z.string().nullable(), value: z.boolean().optional() }).optional(),
  })
  .meta({ id: 'CustomField' });

/** The /v1 CheckoutEntity; optional parts are omitted, not null (success_url excepted). */
export const checkoutEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('checkout'),
    status: z.enum(CHECKOUT_STATUSES),
    request_id: z.string().optional(),
    product: productEntity,
    units: z.number().int(),
    custom_price: wireAmount.optional(),
    order: orderEntity.optional(),
    subscription: subscriptionEntity.optional(),
    customer: customerEntity.optional(),
    custom_fields: z.array(checkoutCustomField),
    checkout_url: z.string(),
    success_url: z.string().nullable(),
    license_keys: z.array(licenseEntity).optional(),
    metadata: metadataField,
    discount: appliedDiscountEntity.optional(),
    created_at: isoTimestamp,
  })
  .meta({ id: 'CheckoutEntity' });
export type CheckoutEntity = z.infer<typeof checkoutEntity>;

export function checkoutUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/checkout/${id}`;
}

export function checkoutFields(c: Pick<CheckoutWithRelations, 'product' | 'extraFields'>): CheckoutField[] {
  return mergeFields(productFieldsOf(c.product.customFields), (c.extraFields ?? []) as unknown as CheckoutField[]);
}

/**
 * The /v1 CheckoutEntity; also the `object` of `checkout.completed`. Optional parts are omitted
 * rather than null (the official client's schema rejects null for them), except success_url.
 */
export function serializeCheckout(c: CheckoutWithRelations, baseUrl: string, now: Date): CheckoutEntity {
  const licenses = c.order?.licenses ?? [];
  return {
    id: c.id,
    mode: c.mode,
    object: 'checkout',
    status: checkoutStatus(c, now),
    ...(c.requestId ? { request_id: c.requestId } : {}),
    product: serializeProduct(c.product, baseUrl),
    units: c.units,
    ...(c.customPrice !== null ? { custom_price: toWireNumber(c.customPrice) } : {}),
    ...(c.order ? { order: serializeOrder(c.order) } : {}),
    ...(c.subscription ? { subscription: serializeSubscription(c.subscription, baseUrl) } : {}),
    ...(c.customer ? { customer: serializeCustomer(c.customer) } : {}),
    // serializeFields writes a text field's value only when it is a string, a checkbox's only when a boolean.
    custom_fields: serializeFields(checkoutFields(c), (c.customFields ?? null) as FieldValues | null) as CheckoutEntity['custom_fields'],
    checkout_url: checkoutUrl(baseUrl, c.id),
    success_url: c.successUrl ?? c.product.defaultSuccessUrl ?? null,
    ...(licenses.length ? { license_keys: licenses.map((l) => serializeLicense(l, now, null)) } : {}),
    metadata: (c.metadata ?? {}) as Record<string, unknown>,
    ...(c.discount ? { discount: serializeAppliedDiscount(c.discount) } : {}),
    created_at: c.createdAt.toISOString(),
  };
}
