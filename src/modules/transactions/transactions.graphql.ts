import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { parseInput } from '../../lib/validation.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, transactionFilterSchema } from './transactions.schemas.js';
import { findTransaction, transactionListing } from './transactions.service.js';

const TransactionTypeEnum = apiEnum('TransactionType', TRANSACTION_TYPES, 'payment: a one-time purchase; invoice: a subscription charge');
const TransactionStatusEnum = apiEnum('TransactionStatus', TRANSACTION_STATUSES);

export const TransactionNode = builder.prismaNode('Transaction', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    amount: t.field({
      type: MoneyRef,
      description: 'Charged or attempted, tax included',
      select: { amount: true, currency: true },
      resolve: (x) => ({ amount: x.amount, currency: x.currency }),
    }),
    amountPaid: t.field({ type: MoneyRef, select: { amountPaid: true, currency: true }, resolve: (x) => ({ amount: x.amountPaid, currency: x.currency }) }),
    discountAmount: t.field({ type: MoneyRef, select: { discountAmount: true, currency: true }, resolve: (x) => ({ amount: x.discountAmount, currency: x.currency }) }),
    taxAmount: t.field({ type: MoneyRef, select: { taxAmount: true, currency: true }, resolve: (x) => ({ amount: x.taxAmount, currency: x.currency }) }),
    refundedAmount: t.field({ type: MoneyRef, select: { refundedAmount: true, currency: true }, resolve: (x) => ({ amount: x.refundedAmount, currency: x.currency }) }),
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

listQuery('transactions', {
  type: 'Transaction',
  description: "The store's transactions in this environment, newest first; productId matches the order or subscription product",
  args: (arg) => ({ customerId: arg.id(), orderId: arg.id(), productId: arg.id() }),
  listing: (ctx, args) => transactionListing(ctx, parseInput(transactionFilterSchema, toApiInput(args))),
});

lookupQuery('transaction', { type: 'Transaction', what: 'A transaction by id (txn_…)', find: findTransaction });

builder.prismaObjectFields('Customer', (t) => ({
  transactions: t.relatedConnection('transactions', {
    cursor: 'id',
    totalCount: true,
    description: "The customer's transactions, newest first, declined attempts included",
    query: { orderBy: { id: 'desc' } },
  }),
}));
