import { toWireNumber } from '../../lib/money.js';
import { serializeCustomer } from '../customers/customers.serializer.js';
import { serializeAppliedDiscount } from '../discounts/discounts.serializer.js';
import { serializeLicense } from '../licenses/licenses.serializer.js';
import { serializeOrder } from '../orders/orders.serializer.js';
import { serializeProduct } from '../products/products.serializer.js';
import { serializeSubscription } from '../subscriptions/subscriptions.serializer.js';
import { mergeFields, productFieldsOf, serializeFields, type CheckoutField, type FieldValues } from './checkout-fields.js';
import { checkoutStatus, type CheckoutWithRelations } from './checkouts.service.js';

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
export function serializeCheckout(c: CheckoutWithRelations, baseUrl: string, now: Date) {
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
    custom_fields: serializeFields(checkoutFields(c), (c.customFields ?? null) as FieldValues | null),
    checkout_url: checkoutUrl(baseUrl, c.id),
    success_url: c.successUrl ?? c.product.defaultSuccessUrl ?? null,
    ...(licenses.length ? { license_keys: licenses.map((l) => serializeLicense(l, now, null)) } : {}),
    metadata: (c.metadata ?? {}) as Record<string, unknown>,
    ...(c.discount ? { discount: serializeAppliedDiscount(c.discount) } : {}),
    created_at: c.createdAt.toISOString(),
  };
}
