import { builder, ModeEnum } from '../../graphql/builder.js';
import { scope } from '../../context.js';
import { ORDERS_NEWEST_FIRST } from './orders.service.js';

export const OrderNode = builder.prismaNode('Order', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    status: t.exposeString('status', { description: 'pending | paid | refunded | partially_refunded' }),
    type: t.exposeString('type', { description: 'onetime | recurring' }),
    units: t.exposeInt('units'),
    currency: t.expose('currency', { type: 'Currency' }),
    subTotal: t.exposeInt('subTotal', { description: 'Price × units before discount and tax, minor units' }),
    discountAmount: t.exposeInt('discountAmount'),
    taxAmount: t.exposeInt('taxAmount'),
    amountDue: t.exposeInt('amountDue'),
    amountPaid: t.exposeInt('amountPaid'),
    fxAmount: t.exposeInt('fxAmount', { nullable: true }),
    fxCurrency: t.exposeString('fxCurrency', { nullable: true }),
    fxRate: t.float({ nullable: true, select: { fxRate: true }, resolve: (o) => (o.fxRate == null ? null : Number(o.fxRate)) }),
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
    load: (ids: string[], ctx) => ctx.core.db.order.findMany({ where: { id: { in: ids }, ...scope(ctx.core) } }),
    sort: (o) => o.id,
    resolve: (tx) => tx.orderId,
  }),
}));

builder.prismaObjectFields('Customer', (t) => ({
  orders: t.relatedConnection('orders', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's orders, newest first",
    query: { orderBy: ORDERS_NEWEST_FIRST },
  }),
}));
