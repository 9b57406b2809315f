import { z } from 'zod';
import { minorUnits, resourceId } from '../../lib/schemas.js';

export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'other'] as const;

/**
 * POST /v1/refunds. The official client sends only `transaction_id` (a full refund of what is
 * left); `amount` (a partial refund) and `reason` are this service's extension.
 */
export const createRefundSchema = z.object({
  transaction_id: resourceId,
  amount: minorUnits.refine((v) => v > 0n, 'must be at least 1').optional(),
  reason: z.enum(REFUND_REASONS).default('requested_by_customer'),
});
export type CreateRefundInput = z.output<typeof createRefundSchema>;
