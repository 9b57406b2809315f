import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { ORDER_STATUSES, ORDER_TYPES, type OrderStatus, type OrderType } from './orders.schemas.js';
import { findOrdersByIds } from './orders.service.js';

const OrderStatusEnum = apiEnum('OrderStatus', ORDER_STATUSES, 'Whether an order is paid, and refunded in full or in part');
const OrderTypeEnum = apiEnum('OrderType', ORDER_TYPES, 'The kind of product bought: one-time, or recurring (the order of a subscription’s first payment)');

export const OrderNode = builder.prismaNode('Order', {
  id: { field: 'id', description: 'The /v1 id (ord_…)' },
  nullable: true,
  description: 'What a completed checkout bought: product, units and the amounts of the payment',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    status: t.field({ type: OrderStatusEnum, description: 'Pending, paid, refunded or partially refunded', resolve: (o) => o.status as OrderStatus }),
    type: t.field({ type: OrderTypeEnum, description: 'One-time or recurring product', resolve: (o) => o.type as OrderType }),
    units: t.exposeInt('units', { description: 'Quantity bought' }),
    subTotal: t.field({
      type: MoneyRef,
      description: 'Price × units before discount and tax',
      select: { subTotal: true, currency: true },
      resolve: (o) => ({ amount: o.subTotal, currency: o.currency }),
    }),
    discountAmount: t.field({ type: MoneyRef, description: 'Taken off by the discount; zero without one', select: { discountAmount: true, currency: true }, resolve: (o) => ({ amount: o.discountAmount, currency: o.currency }) }),
    taxAmount: t.field({ type: MoneyRef, description: 'Tax, part of amountDue', select: { taxAmount: true, currency: true }, resolve: (o) => ({ amount: o.taxAmount, currency: o.currency }) }),
    amountDue: t.field({
      type: MoneyRef,
      description: 'What the buyer owes in total: after discount, tax included',
      select: { amountDue: true, currency: true },
      resolve: (o) => ({ amount: o.amountDue, currency: o.currency }),
    }),
    amountPaid: t.field({ type: MoneyRef, description: 'What the buyer paid', select: { amountPaid: true, currency: true }, resolve: (o) => ({ amount: o.amountPaid, currency: o.currency }) }),
    fxAmount: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'The total in the currency the buyer was shown; informative only',
      select: { fxAmount: true, fxCurrency: true },
      resolve: (o) => (o.fxAmount === null || o.fxCurrency === null ? null : { amount: o.fxAmount, currency: o.fxCurrency }),
    }),
    fxRate: t.field({ type: 'Decimal', nullable: true, description: 'The conversion rate behind fxAmount; null when there is none', select: { fxRate: true }, resolve: (o) => (o.fxRate == null ? null : o.fxRate.toString()) }),
    affiliate: t.exposeString('affiliate', { nullable: true, description: 'The affiliate the sale is attributed to (aff_…); null when none referred it' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the order was created (the payment)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the order last changed' }),
    product: t.relation('product', { description: 'The product bought' }),
    customer: t.relation('customer', { description: 'The buyer' }),
    transaction: t.relation('transaction', { nullable: true, description: 'The payment that paid this order' }),
  }),
});

// Transaction.orderId is a plain column (no Prisma relation), so this goes through a per-request
// loader: one query for all the orders a response needs.
builder.prismaObjectFields('Transaction', (t) => ({
  order: t.loadable({
    type: OrderNode,
    nullable: true,
    description: 'The order a checkout’s payment paid; null for declined attempts, renewals and other charges',
    load: (ids: string[], ctx) => findOrdersByIds(ctx.core, ids),
    sort: (o) => o.id,
    resolve: (tx) => tx.orderId,
  }),
}));

builder.prismaObjectFields('Customer', (t) => ({
  orders: t.relatedConnection('orders', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's orders, newest first",
    query: { orderBy: { id: 'desc' } },
  }),
}));
