import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { ORDER_STATUSES, ORDER_TYPES, type OrderStatus, type OrderType } from './orders.schemas.js';
import { findOrdersByIds } from './orders.service.js';

const OrderStatusEnum = apiEnum('OrderStatus', ORDER_STATUSES);
const OrderTypeEnum = apiEnum('OrderType', ORDER_TYPES);

export const OrderNode = builder.prismaNode('Order', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    status: t.field({ type: OrderStatusEnum, resolve: (o) => o.status as OrderStatus }),
    type: t.field({ type: OrderTypeEnum, resolve: (o) => o.type as OrderType }),
    units: t.exposeInt('units'),
    subTotal: t.field({
      type: MoneyRef,
      description: 'Price × units before discount and tax',
      select: { subTotal: true, currency: true },
      resolve: (o) => ({ amount: o.subTotal, currency: o.currency }),
    }),
    discountAmount: t.field({ type: MoneyRef, select: { discountAmount: true, currency: true }, resolve: (o) => ({ amount: o.discountAmount, currency: o.currency }) }),
    taxAmount: t.field({ type: MoneyRef, select: { taxAmount: true, currency: true }, resolve: (o) => ({ amount: o.taxAmount, currency: o.currency }) }),
    amountDue: t.field({
      type: MoneyRef,
      description: 'What the buyer owes in total: after discount, tax included',
      select: { amountDue: true, currency: true },
      resolve: (o) => ({ amount: o.amountDue, currency: o.currency }),
    }),
    amountPaid: t.field({ type: MoneyRef, select: { amountPaid: true, currency: true }, resolve: (o) => ({ amount: o.amountPaid, currency: o.currency }) }),
    fxAmount: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'The total in the currency the buyer was shown; informative only',
      select: { fxAmount: true, fxCurrency: true },
      resolve: (o) => (o.fxAmount === null || o.fxCurrency === null ? null : { amount: o.fxAmount, currency: o.fxCurrency }),
    }),
    fxRate: t.field({ type: 'Decimal', nullable: true, select: { fxRate: true }, resolve: (o) => (o.fxRate == null ? null : o.fxRate.toString()) }),
    affiliate: t.exposeString('affiliate', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    product: t.relation('product'),
    customer: t.relation('customer'),
    transaction: t.relation('transaction', { nullable: true, description: 'The payment that paid this order' }),
  }),
});

// Transaction.orderId is a plain column (no Prisma relation), so this goes through a per-request
// loader: one query for all the orders a response needs.
builder.prismaObjectFields('Transaction', (t) => ({
  order: t.loadable({
    type: OrderNode,
    nullable: true,
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
