import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { parseInput } from '../../lib/validation.js';
import { searchTransactionsSchema } from './transactions.schemas.js';
import { findTransaction, transactionListFilter, TRANSACTIONS_NEWEST_FIRST } from './transactions.service.js';

const TransactionTypeEnum = builder.enumType('TransactionType', {
  values: ['payment', 'invoice'] as const,
  description: 'payment: a one-time purchase; invoice: a subscription charge',
});
const TransactionStatusEnum = builder.enumType('TransactionStatus', {
  values: ['pending', 'paid', 'refunded', 'partialRefund', 'chargedBack', 'uncollectible', 'declined', 'canceled', 'void'] as const,
});

export const TransactionNode = builder.prismaNode('Transaction', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    amount: t.exposeInt('amount', { description: 'Charged or attempted, minor units, tax included' }),
    amountPaid: t.exposeInt('amountPaid'),
    discountAmount: t.exposeInt('discountAmount'),
    taxAmount: t.exposeInt('taxAmount'),
    refundedAmount: t.exposeInt('refundedAmount'),
    currency: t.expose('currency', { type: 'Currency' }),
    type: t.expose('type', { type: TransactionTypeEnum }),
    status: t.expose('status', { type: TransactionStatusEnum }),
    taxCountry: t.exposeString('taxCountry', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    declineCode: t.exposeString('declineCode', { nullable: true, description: 'Why the processor refused a declined attempt' }),
    periodStart: t.expose('periodStart', { type: 'DateTime', nullable: true }),
    periodEnd: t.expose('periodEnd', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    orderId: t.exposeString('orderId', { nullable: true }),
    customer: t.relation('customer', { nullable: true }),
    subscription: t.relation('subscription', { nullable: true }),
    // `order` (by orderId, which has no Prisma relation) is added in orders.graphql.ts.
  }),
});

builder.queryFields((t) => ({
  transaction: t.prismaField({
    type: 'Transaction',
    description: 'A transaction by its /v1 id (txn_…) or global id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _p, args, ctx) => findTransaction(ctx.core, apiIdOf(String(args.id), 'Transaction'), query),
  }),
  transactions: t.prismaConnection({
    type: 'Transaction',
    cursor: 'id',
    description: 'Transactions of this store and environment, newest first; productId matches the order or subscription product',
    args: { customerId: t.arg.id(), orderId: t.arg.id(), productId: t.arg.id() },
    totalCount: (_p, args, ctx) => ctx.core.db.transaction.count({ where: transactionsWhere(ctx.core, args) }),
    resolve: (query, _p, args, ctx) =>
      ctx.core.db.transaction.findMany({ ...query, where: transactionsWhere(ctx.core, args), orderBy: TRANSACTIONS_NEWEST_FIRST }),
  }),
}));

type FilterArgs = { customerId?: string | number | null; orderId?: string | number | null; productId?: string | number | null };

function transactionsWhere(ctx: Parameters<typeof transactionListFilter>[0], args: FilterArgs) {
  const id = (v: string | number | null | undefined, type: string) => (v == null ? undefined : apiIdOf(String(v), type));
  const input = parseInput(searchTransactionsSchema.pick({ customer_id: true, order_id: true, product_id: true }), {
    customer_id: id(args.customerId, 'Customer'),
    order_id: id(args.orderId, 'Order'),
    product_id: id(args.productId, 'Product'),
  });
  return transactionListFilter(ctx, input);
}

builder.prismaObjectFields('Customer', (t) => ({
  transactions: t.relatedConnection('transactions', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's transactions, newest first, declined attempts included",
    query: { orderBy: TRANSACTIONS_NEWEST_FIRST },
  }),
}));
