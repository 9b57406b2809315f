import { z } from 'zod';
import type { Order } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { isoTimestamp, modeField, wireAmount } from '../../lib/response-schemas.js';
import { ORDER_STATUSES, ORDER_TYPES } from './orders.schemas.js';

/** The /v1 OrderEntity. */
export const orderEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('order'),
    customer: z.string().nullable(),
    product: z.string(),
    transaction: z.string().nullable(),
    discount: z.string().nullable(),
    amount: wireAmount.meta({ description: 'What the buyer owes in total: after discount, tax included' }),
    sub_total: wireAmount,
    tax_amount: wireAmount,
    discount_amount: wireAmount,
    amount_due: wireAmount,
    amount_paid: wireAmount,
    currency: z.string(),
    fx_amount: wireAmount.nullable(),
    fx_currency: z.string().nullable(),
    fx_rate: z.number().nullable(),
    status: z.enum(ORDER_STATUSES),
    type: z.enum(ORDER_TYPES),
    affiliate: z.string().nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'OrderEntity' });
export type OrderEntity = z.infer<typeof orderEntity>;

/** The /v1 OrderEntity (dates ISO strings). `amount` is what the buyer owes in total: after discount, tax included. */
export function serializeOrder(o: Order): OrderEntity {
  return {
    id: o.id,
    mode: o.mode,
    object: 'order',
    customer: o.customerId,
    product: o.productId,
    transaction: o.transactionId,
    discount: o.discountId,
    amount: toWireNumber(o.amountDue),
    sub_total: toWireNumber(o.subTotal),
    tax_amount: toWireNumber(o.taxAmount),
    discount_amount: toWireNumber(o.discountAmount),
    amount_due: toWireNumber(o.amountDue),
    amount_paid: toWireNumber(o.amountPaid),
    currency: o.currency,
    fx_amount: o.fxAmount === null ? null : toWireNumber(o.fxAmount),
    fx_currency: o.fxCurrency,
    fx_rate: o.fxRate == null ? null : Number(o.fxRate),
    status: o.status as OrderEntity['status'],
    type: o.type as OrderEntity['type'],
    affiliate: o.affiliate,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
