import type { ProductFeature } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { openCustomerAccount, postAgainstStore } from './credits.service.js';

type CreditFeature = Pick<ProductFeature, 'id' | 'type' | 'creditsAmount' | 'creditsUnitLabel' | 'creditsBucketName'>;

/**
 * What a paid transaction (a checkout's payment, a renewal) grants through the product's
 * `customerCredits` features, in the payment's database transaction. The key is the payment and
 * the feature, so a payment recorded twice grants once. A bucket the seller froze or closed
 * gets nothing: the grant is skipped, not the payment.
 */
export async function grantPurchasedCredits(ctx: RequestContext, customerId: string, paymentId: string, features: readonly CreditFeature[]): Promise<void> {
  for (const f of features) {
    if (f.type !== 'customerCredits' || !f.creditsAmount || f.creditsAmount <= 0n) continue;
    // A grant must land somewhere: the bucket is opened when missing.
    const { account } = await openCustomerAccount(ctx, customerId, f.creditsBucketName ?? 'default', f.creditsUnitLabel ?? 'credits');
    if (account.status !== 'active') continue;
    const key = `grant:${paymentId}:${f.id}`;
    await postAgainstStore(ctx, account, 'credit', f.creditsAmount, { reference: paymentId, idempotencyKey: key, requestHash: key, accountPath: ['features', f.id], amountPath: ['features', f.id] });
  }
}

/** The credit features of products, by product: what renewals of a group grant. */
export async function creditFeaturesOf(ctx: RequestContext, productIds: readonly string[]): Promise<Map<string, CreditFeature[]>> {
  const features = productIds.length ? await db(ctx).productFeature.findMany({ where: { productId: { in: [...new Set(productIds)] }, type: 'customerCredits' } }) : [];
  const out = new Map<string, CreditFeature[]>();
  for (const f of features) out.set(f.productId, [...(out.get(f.productId) ?? []), f]);
  return out;
}
