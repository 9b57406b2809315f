import { apiEnum, builder, MoneyRef } from '../../graphql/builder.js';
import { operationMutation, payloadType, type Payload } from '../../graphql/mutation.js';
import { REFUND_REASONS } from './refunds.schemas.js';
import { createRefundOp } from './refunds.operations.js';
import type { serializeRefund } from './refunds.serializer.js';

type RefundBody = ReturnType<typeof serializeRefund>;

const RefundReasonEnum = apiEnum('RefundReason', REFUND_REASONS, 'Why the money is given back');
const RefundStatusEnum = apiEnum('RefundStatus', ['pending', 'succeeded', 'failed'] as const, 'Whether the processor gave the money back', {
  pending: 'Its amount is reserved on the transaction; the processor has not answered yet',
  succeeded: 'The money went back to the buyer',
  failed: 'The processor refused it; the amount is free to refund again',
});

const RefundRef = builder.objectRef<RefundBody>('Refund').implement({
  description: 'Money given back on a paid transaction',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (ref_…)' }),
    status: t.field({ type: RefundStatusEnum, description: 'Pending, succeeded or failed', resolve: (r) => r.status }),
    amount: t.field({ type: MoneyRef, description: 'Given back, tax included', resolve: (r) => ({ amount: BigInt(r.refund_amount), currency: r.refund_currency }) }),
    taxAmount: t.field({ type: MoneyRef, description: 'The part of the amount that is tax given back', resolve: (r) => ({ amount: BigInt(r.tax_amount), currency: r.refund_currency }) }),
    reason: t.field({ type: RefundReasonEnum, description: 'Why it was refunded', resolve: (r) => r.reason }),
    createdAt: t.field({ type: 'DateTime', description: 'When the refund was made', resolve: (r) => new Date(r.created_at) }),
  }),
});

const RefundTransactionPayload = payloadType('RefundTransactionPayload', 'transaction', 'Transaction', 'The transaction refunded');
builder.objectFields(RefundTransactionPayload, (t) => ({
  refund: t.field({ type: RefundRef, nullable: true, description: 'The refund made (the first one, on a retry with its Idempotency-Key); null when refused', resolve: (p: Payload) => (p.body as RefundBody | null) ?? null }),
}));

operationMutation('refundTransaction', {
  op: createRefundOp,
  input: builder.inputType('RefundTransactionInput', {
    description: 'The paid transaction to refund, and how much',
    fields: (t) => ({
      transactionId: t.id({ required: true, description: 'A paid transaction (txn_…)' }),
      amount: t.field({ type: 'MinorUnits', required: false, description: 'A partial refund; default: all that is left to refund' }),
      reason: t.field({ type: RefundReasonEnum, required: false, description: 'Default requested_by_customer' }),
    }),
  }),
  payload: RefundTransactionPayload,
  description: 'Refunds a paid transaction in full or in part; never more than was paid',
});
