import type { Order } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';

/** The /v1 OrderEntity (dates ISO strings). `amount` is what the buyer owes in total: after discount, tax included. */
export function serializeOrder(o: Order) {
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
    status: o.status,
    type: o.type,
    affiliate: o.affiliate,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
  };
}
