import { defineOperation } from '../../core/operation.js';
import { createRefundSchema } from './refunds.schemas.js';
import { refundEntity, serializeRefund } from './refunds.serializer.js';
import { createRefund } from './refunds.service.js';

/**
 * Not one transaction: the processor is called between reserving and recording (see
 * createRefund). An Idempotency-Key is honoured by the service itself: a retry finds the refund
 * the key made, whatever the outcome, instead of refunding again.
 */
export const createRefundOp = defineOperation({
  name: 'refunds.create',
  summary: 'Refund a transaction',
  description: 'Refunds what is left of a paid transaction, or `amount` minor units of it; a transaction refunded in full or not paid is refused (400 `invalid_state`). With an Idempotency-Key a retry gets the refund the key made instead of refunding again.',
  input: createRefundSchema,
  write: false,
  output: refundEntity,
  run: createRefund,
  render: (_ctx, refund) => serializeRefund(refund),
  idOf: (refund) => refund.transactionId,
});
