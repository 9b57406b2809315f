import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { parseInput } from '../../lib/validation.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES, transactionFilterSchema } from './transactions.schemas.js';
import { findTransaction, transactionListing } from './transactions.service.js';

const TransactionTypeEnum = apiEnum('TransactionType', TRANSACTION_TYPES, 'payment: a one-time purchase; invoice: a subscription charge');
const TransactionStatusEnum = apiEnum('TransactionStatus', TRANSACTION_STATUSES, 'Where a charge stands: being charged, paid, refunded, disputed or refused', {
  pending: 'Recorded, the charge is under way',
  paid: 'The money was taken',
  refunded: 'Paid, then refunded in full',
  partialRefund: 'Paid, then refunded in part (refundedAmount)',
  chargedBack: 'Paid, then disputed by the buyer: the money went back',
  declined: 'The processor refused the charge (declineCode says why)',
});

export const TransactionNode = builder.prismaNode('Transaction', {
  id: { field: 'id', description: 'The /v1 id (txn_…)' },
  nullable: true,
  description: 'One charge (or attempt) of a customer: a one-time payment or a subscription invoice, declined attempts included',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    amount: t.field({
      type: MoneyRef,
      description: 'Charged or attempted, tax included',
      select: { amount: true, currency: true },
      resolve: (x) => ({ amount: x.amount, currency: x.currency }),
    }),
    amountPaid: t.field({ type: MoneyRef, description: 'What was actually taken: zero for a declined or pending attempt', select: { amountPaid: true, currency: true }, resolve: (x) => ({ amount: x.amountPaid, currency: x.currency }) }),
    discountAmount: t.field({ type: MoneyRef, description: 'Taken off by a discount; zero without one', select: { discountAmount: true, currency: true }, resolve: (x) => ({ amount: x.discountAmount, currency: x.currency }) }),
    taxAmount: t.field({ type: MoneyRef, description: 'Tax, part of amount', select: { taxAmount: true, currency: true }, resolve: (x) => ({ amount: x.taxAmount, currency: x.currency }) }),
    refundedAmount: t.field({ type: MoneyRef, description: 'Given back by refunds so far (pending ones included); zero when none', select: { refundedAmount: true, currency: true }, resolve: (x) => ({ amount: x.refundedAmount, currency: x.currency }) }),
    type: t.expose('type', { type: TransactionTypeEnum, description: 'A one-time payment or a subscription invoice' }),
    status: t.expose('status', { type: TransactionStatusEnum, description: 'Paid, declined, refunded, …' }),
    taxCountry: t.exposeString('taxCountry', { nullable: true, description: 'Two-letter country (ISO 3166-1) the tax was computed for; null when unknown' }),
    description: t.exposeString('description', { nullable: true, description: 'What was charged for ("Subscription to Pro", "Proration: …")' }),
    declineCode: t.exposeString('declineCode', { nullable: true, description: 'Why the processor refused a declined attempt' }),
    periodStart: t.expose('periodStart', { type: 'DateTime', nullable: true, description: 'Invoices: start of the subscription period paid for; null for one-time payments' }),
    periodEnd: t.expose('periodEnd', { type: 'DateTime', nullable: true, description: 'Invoices: end of the period paid for; null for one-time payments' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the charge was recorded' }),
    orderId: t.exposeString('orderId', { nullable: true, description: 'The order a checkout’s payment paid (ord_…); null otherwise' }),
    customer: t.relation('customer', { nullable: true, description: 'Who was charged; null when not known (a declined checkout attempt before any customer)' }),
    subscription: t.relation('subscription', { nullable: true, description: 'The subscription charged; null for one-time payments' }),
    // `order` (by orderId, which has no Prisma relation) is added in orders.graphql.ts.
  }),
});

listQuery('transactions', {
  type: 'Transaction',
  description: "The store's transactions in this environment, newest first; productId matches the order or subscription product",
  args: (arg) => ({
    customerId: arg.id({ description: 'Only this customer’s (cust_…)' }),
    orderId: arg.id({ description: 'Only this order’s (ord_…)' }),
    productId: arg.id({ description: 'Only those for this product (prod_…)' }),
  }),
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
