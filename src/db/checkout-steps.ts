import type { Checkout } from '../generated/prisma/client.js';
import { columnList, prepared } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

/**
 * The writes of a payment's steps on its checkout, as named prepared statements (each is made
 * on every purchase; through the client's engine each cost several times the statement).
 * `updatedAt` is the real time, as the client's `@updatedAt` would set it.
 */
const json = (value: unknown) => JSON.stringify(value);

/** Step 1: the attempt is under way (a second submit now waits instead of charging again). */
export async function markProcessing(
  ctx: TenantContext,
  id: string,
  step: { now: Date; attempt: number; discountReserved: boolean; buyer: unknown; quote: unknown; customFields: unknown },
): Promise<void> {
  await sqlClient(ctx).$executeRaw`${prepared}
    UPDATE "Checkout" SET "status" = CAST('processing' AS "CheckoutStatus"), "processingStartedAt" = ${step.now}, "paymentAttempts" = ${step.attempt},
      "discountReserved" = ${step.discountReserved}, "buyer" = CAST(${json(step.buyer)} AS jsonb), "quote" = CAST(${json(step.quote)} AS jsonb),
      "customFields" = CAST(${json(step.customFields)} AS jsonb), "updatedAt" = ${new Date()}
    WHERE "id" = ${id} AND ${tenantCondition(ctx)}`;
}

/**
 * Step 3 claims the settling of an attempt: true for the one caller whose update matched (the
 * attempt still the checkout's current one, still processing); it also locks the row.
 */
export async function claimSettling(ctx: TenantContext, id: string, attempt: number): Promise<boolean> {
  const count = await sqlClient(ctx).$executeRaw`${prepared}
    UPDATE "Checkout" SET "processingStartedAt" = NULL, "updatedAt" = ${new Date()}
    WHERE "id" = ${id} AND "status" = CAST('processing' AS "CheckoutStatus") AND "paymentAttempts" = ${attempt} AND ${tenantCondition(ctx)}`;
  return count > 0;
}

/** The purchase is written: the checkout completed, pointing at what it created. Returns the row as the client would. */
export async function completeCheckout(ctx: TenantContext, id: string, done: { customerId: string; orderId: string; subscriptionId: string | null; now: Date }): Promise<Checkout> {
  const [row] = await sqlClient(ctx).$queryRaw<Checkout[]>`${prepared}
    UPDATE "Checkout" AS ch SET "status" = CAST('completed' AS "CheckoutStatus"), "customerId" = ${done.customerId}, "orderId" = ${done.orderId},
      "subscriptionId" = ${done.subscriptionId}, "completedAt" = ${done.now}, "processingStartedAt" = NULL, "updatedAt" = ${new Date()}
    WHERE ch."id" = ${id} AND ${tenantCondition(ctx, 'ch')}
    RETURNING ${columnList('Checkout', 'ch')}`;
  if (!row) throw new Error(`checkout ${id} vanished while its purchase was written`);
  return row;
}
