import type { JobHandler } from '../../jobs/scheduled-jobs.js';
import { RECONCILE_JOB, reconcilePayment } from './checkout-payment.js';

/**
 * Settles a checkout whose payment was cut off after the charge (the process died between
 * the processor's answer and recording it): scheduled when the payment starts, cancelled when
 * it is recorded, so it runs only for payments nobody finished. Retried while the processor
 * cannot be reached.
 */
export const reconcileCheckoutJob: JobHandler = {
  kind: RECONCILE_JOB,
  retryDelaysMs: [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 12 * 3_600_000],
  async run(ctx, checkoutId) {
    await reconcilePayment(ctx, checkoutId);
  },
};
