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
  input: createRefundSchema,
  write: false,
  output: refundEntity,
  run: createRefund,
  render: (_ctx, refund) => serializeRefund(refund),
  idOf: (refund) => refund.transactionId,
});
