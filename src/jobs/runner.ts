import type { Config } from '../config.js';
import type { ServiceEnv } from '../context.js';
import type { Mode } from '../generated/prisma/enums.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../logger.js';
import { reconcileCheckoutJob } from '../modules/checkouts/checkout-reconciliation.js';
import { disputeJob } from '../modules/disputes/disputes.service.js';
import { settleRefundJob } from '../modules/refunds/refunds.service.js';
import { renewalJob } from '../modules/subscriptions/renewals.js';
import { autoRechargeJob } from '../modules/credits/auto-recharge.js';
import { webhookDeliveries } from '../modules/webhooks/delivery-worker.js';
import { JobRunner } from './job-runner.js';
import { scheduledJobs } from './scheduled-jobs.js';

/** Every kind of job the service runs; the server's runner and `npm run worker` are built here alike. */
export function createJobRunner(options: {
  db: PrismaClient;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'allowPrivateWebhookUrls'>;
  envFor(mode: Mode): ServiceEnv;
}): JobRunner {
  const logger = options.logger.child({ component: 'jobs' });
  return new JobRunner({
    db: options.db,
    clock: options.clock,
    logger,
    kinds: [
      webhookDeliveries({ clock: options.clock, logger, allowPrivateUrls: options.config.allowPrivateWebhookUrls }),
      scheduledJobs({ handlers: [reconcileCheckoutJob, renewalJob(), settleRefundJob, disputeJob, autoRechargeJob], envFor: options.envFor, logger }),
    ],
  });
}
