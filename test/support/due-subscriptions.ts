import type { Database } from '../../src/db/database.js';
import { newId } from '../../src/lib/ids.js';
import { RENEW_JOB } from '../../src/modules/subscriptions/renewals.js';
import { createStore } from '../../src/modules/stores/stores.service.js';

const CHUNK = 1_000;

/**
 * `n` monthly 10.00 EUR subscriptions of a new store whose period ended a minute ago, each with
 * its renewal job due at `jobsDueAt` (default: at once), written in bulk. For the tests and the
 * benchmark of renewals at scale.
 */
export async function seedDueSubscriptions(
  db: Database,
  n: number,
  options: { paymentMethodToken?: string; jobsDueAt?: Date } = {},
): Promise<{ storeId: string; ids: string[]; periodEnd: Date }> {
  const store = await createStore(db.prisma, { name: 'Renewals at scale' });
  const tenant = { storeId: store.id, mode: 'test' as const };
  const periodEnd = new Date(Date.now() - 60_000);
  const periodStart = new Date(periodEnd.getTime() - 30 * 86_400_000);
  const productId = newId('product');
  const customerId = newId('customer');
  await db.prisma.product.create({ data: { ...tenant, id: productId, name: 'Plan', description: 'Plan', price: 1000n, currency: 'EUR', billingType: 'recurring', billingPeriod: 'every-month', recurringInterval: 'month', recurringIntervalCount: 1 } });
  await db.prisma.customer.create({ data: { ...tenant, id: customerId, email: 'renewals@example.com', country: 'US' } });
  const all: string[] = [];
  for (let i = 0; i < n; i += CHUNK) {
    const ids = Array.from({ length: Math.min(CHUNK, n - i) }, () => newId('subscription'));
    all.push(...ids);
    await db.prisma.subscription.createMany({
      data: ids.map((id) => ({
        ...tenant,
        id,
        customerId,
        productId,
        status: 'active' as const,
        currentPeriodStartDate: periodStart,
        currentPeriodEndDate: periodEnd,
        nextTransactionDate: periodEnd,
        billingAnchor: periodStart,
        billingPeriods: 1,
        paymentMethodToken: options.paymentMethodToken ?? 'pm_sim_ok_SeededSeededSeed',
        taxCountry: 'US',
      })),
    });
    await db.prisma.subscriptionItem.createMany({ data: ids.map((id) => ({ ...tenant, id: newId('subscriptionItem'), subscriptionId: id, productId, priceId: productId, units: 1, unitPrice: 1000n })) });
    await db.prisma.job.createMany({ data: ids.map((id) => ({ ...tenant, id: newId('job'), kind: RENEW_JOB, subjectId: id, nextAttemptAt: options.jobsDueAt ?? periodEnd })) });
  }
  // Statistics, as a database holding these rows for more than a minute has them (autovacuum):
  // without them the planner takes the new rows for a handful and scans a store's rows.
  await db.prisma.$executeRawUnsafe('ANALYZE "Subscription", "SubscriptionItem", "Job"');
  return { storeId: store.id, ids: all, periodEnd };
}
