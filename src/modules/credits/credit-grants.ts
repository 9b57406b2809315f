import type { ProductFeature } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, insertRows } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { post } from './ledger.js';
import { systemAccount } from './credits.service.js';

type CreditFeature = Pick<ProductFeature, 'id' | 'type' | 'creditsAmount' | 'creditsUnitLabel' | 'creditsBucketName'>;

/** The customer's bucket of that name, opened when missing (a grant must land somewhere). */
async function bucketFor(ctx: RequestContext, customerId: string, name: string, unitLabel: string) {
  await insertRows(
    ctx,
    'CreditAccount',
    [{ id: newId('creditAccount'), owner: 'customer', customerId, name, nameKey: name.toLowerCase(), systemUnit: null, unitLabel, createdAt: ctx.clock.now() }],
    { onConflict: { key: ['storeId', 'mode', 'customerId', 'nameKey'] } },
  );
  return db(ctx).creditAccount.findFirstOrThrow({ where: { customerId, nameKey: name.toLowerCase() } });
}

/**
 * What a paid transaction (a checkout's payment, a renewal) grants through the product's
 * `customerCredits` features, in the payment's database transaction. The key is the payment and
 * the feature, so a payment recorded twice grants once. A bucket the seller froze or closed
 * gets nothing: the grant is skipped, not the payment.
 */
export async function grantPurchasedCredits(ctx: RequestContext, customerId: string, paymentId: string, features: readonly CreditFeature[]): Promise<void> {
  for (const f of features) {
    if (f.type !== 'customerCredits' || !f.creditsAmount || f.creditsAmount <= 0n) continue;
    const account = await bucketFor(ctx, customerId, f.creditsBucketName ?? 'default', f.creditsUnitLabel ?? 'credits');
    if (account.status !== 'active') continue;
    await post(ctx, {
      reference: paymentId,
      idempotencyKey: `grant:${paymentId}:${f.id}`,
      requestHash: `grant:${paymentId}:${f.id}`,
      postings: [
        { accountId: account.id, side: 'credit', amount: f.creditsAmount, accountPath: ['features', f.id], amountPath: ['features', f.id] },
        { accountId: await systemAccount(ctx, account.unitLabel, account.id), side: 'debit', amount: f.creditsAmount, accountPath: ['features', f.id], amountPath: ['features', f.id] },
      ],
    });
  }
}

/** The credit features of products, by product: what renewals of a group grant. */
export async function creditFeaturesOf(ctx: RequestContext, productIds: readonly string[]): Promise<Map<string, CreditFeature[]>> {
  const features = productIds.length ? await db(ctx).productFeature.findMany({ where: { productId: { in: [...new Set(productIds)] }, type: 'customerCredits' } }) : [];
  const out = new Map<string, CreditFeature[]>();
  for (const f of features) out.set(f.productId, [...(out.get(f.productId) ?? []), f]);
  return out;
}
