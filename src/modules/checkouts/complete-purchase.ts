import type { Discount, Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { completeCheckout } from '../../db/checkout-steps.js';
import { upsertBuyer } from '../../db/customers.js';
import { db } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { addDays, addInterval, type Interval } from '../../lib/periods.js';
import { recordEvent } from '../events/events.service.js';
import { grantPurchasedCredits } from '../credits/credit-grants.js';
import { issueLicense } from '../licenses/licenses.service.js';
import { serializeSubscription } from '../subscriptions/subscriptions.serializer.js';
import { SUBSCRIPTION_INCLUDE } from '../subscriptions/subscriptions.service.js';
import type { ChargeResult } from '../payments/processor.js';
import { normalizeTaxId } from '../tax/tax.js';
import { RENEW_JOB } from '../subscriptions/renewals.js';
import { scheduleJob } from '../../jobs/scheduled-jobs.js';
import { expectDispute } from '../disputes/disputes.service.js';
import { sharePayments } from '../payments/payment-shares.js';
import type { Quote } from './checkout-quote.js';
import type { Buyer } from './checkout-payment.js';
import type { CheckoutWithRelations, PayableCheckout } from './checkouts.service.js';
import { serializeCheckout } from './checkouts.serializer.js';

/**
 * Billing periods, after the current one, that a subscription discount still covers.
 * `once` covers only the first paid period; `repeating` covers the periods that start within
 * `durationInMonths` of the first one; `forever` is unlimited (null).
 */
function discountPeriodsAfterFirst(d: Discount, firstPaidStart: Date, interval: Interval, count: number): number | null {
  if (d.duration === 'forever') return null;
  if (d.duration === 'once') return 0;
  const until = addInterval(firstPaidStart, 'month', d.durationInMonths ?? 1);
  let periods = 0;
  for (let start = addInterval(firstPaidStart, interval, count); start < until; start = addInterval(start, interval, count)) periods++;
  return periods;
}

/**
 * Writes what a successful payment creates, inside the caller's transaction: customer (found
 * by e-mail or created), order, transaction, subscription for recurring products, license key
 * for products with a licenseKey feature, the completed checkout, and the events. Either all of
 * it is committed or none of it.
 */
export async function completePurchase(
  ctx: RequestContext,
  c: PayableCheckout,
  quote: Quote,
  buyer: Buyer,
  charge: Extract<ChargeResult, { status: 'succeeded' }>,
): Promise<CheckoutWithRelations> {
  const processorReference = charge.reference;
  const now = ctx.clock.now();
  const { product } = c;
  const tx = db(ctx);

  let customerId = c.customerId;
  // The customer as the completed checkout shows it: read fresh (another request may have changed it since step 1).
  let customer = customerId ? await tx.customer.findUniqueOrThrow({ where: { id: customerId } }) : null;
  if (!customerId) {
    customer = await upsertBuyer(ctx, buyer, now);
    customerId = customer.id;
  }

  const orderId = newId('order');
  const transactionId = newId('transaction');
  const recurring = product.billingType === 'recurring';
  let subscriptionId: string | null = null;
  let periodStart: Date | null = null;
  let periodEnd: Date | null = null;

  if (recurring) {
    const interval = (product.recurringInterval ?? 'month') as Interval;
    const count = product.recurringIntervalCount ?? 1;
    const trialing = quote.trial_days > 0;
    periodStart = now;
    periodEnd = trialing ? addDays(now, quote.trial_days) : addInterval(now, interval, count);
    subscriptionId = newId('subscription');
    let discountPeriodsLeft: number | null = null;
    if (c.discount) {
      // After a trial the first paid period is still ahead, so it is among those left.
      const after = discountPeriodsAfterFirst(c.discount, trialing ? periodEnd : now, interval, count);
      discountPeriodsLeft = after !== null && trialing ? after + 1 : after;
    }
    await tx.subscription.create({
      data: {
        id: subscriptionId,
        customerId,
        productId: product.id,
        status: trialing ? 'trialing' : 'active',
        discountId: c.discountId,
        discountPeriodsLeft,
        lastTransactionId: transactionId,
        lastTransactionDate: now,
        affiliateId: c.affiliateId,
        nextTransactionDate: periodEnd,
        currentPeriodStartDate: periodStart,
        currentPeriodEndDate: periodEnd,
        trialEndDate: trialing ? periodEnd : null,
        // Periods count from the first paid one: now, or the end of the trial.
        billingAnchor: trialing ? periodEnd : now,
        billingPeriods: trialing ? 0 : 1,
        paymentMethodToken: charge.savedPaymentMethod?.token ?? null,
        paymentMethodBrand: charge.savedPaymentMethod?.brand ?? null,
        paymentMethodLast4: charge.savedPaymentMethod?.last4 ?? null,
        taxCountry: buyer.country,
        taxId: normalizeTaxId(buyer.tax_id),
        metadata: c.metadata ?? {},
        createdAt: now,
        items: {
          create: [{ id: newId('subscriptionItem'), productId: product.id, priceId: product.id, units: c.units, unitPrice: trialing ? c.customPrice : quote.unit_price }],
        },
      },
    });
    await scheduleJob(ctx, RENEW_JOB, subscriptionId, periodEnd);
  }

  await tx.transaction.create({
    data: {
      id: transactionId,
      customerId,
      orderId,
      subscriptionId,
      checkoutId: c.id,
      amount: quote.amount_due,
      amountPaid: quote.amount_due,
      discountAmount: quote.discount_amount,
      taxAmount: quote.tax_amount,
      taxCountry: quote.tax_country,
      currency: quote.currency,
      type: recurring ? 'invoice' : 'payment',
      status: 'paid',
      description: recurring ? `Subscription to ${product.name}` : `Payment for ${product.name}`,
      processorReference,
      periodStart,
      periodEnd,
      createdAt: now,
    },
  });
  await sharePayments(ctx, [{ transactionId, productId: product.id, affiliateId: c.affiliateId, net: quote.amount_due - quote.tax_amount, currency: quote.currency }]);
  await expectDispute(ctx, transactionId, charge);
  const order = await tx.order.create({
    data: {
      id: orderId,
      customerId,
      productId: product.id,
      transactionId,
      discountId: c.discountId,
      status: 'paid',
      type: recurring ? 'recurring' : 'onetime',
      units: c.units,
      currency: quote.currency,
      subTotal: quote.sub_total,
      discountAmount: quote.discount_amount,
      taxAmount: quote.tax_amount,
      amountDue: quote.amount_due,
      amountPaid: quote.amount_due,
      affiliate: c.affiliateId,
      createdAt: now,
    },
  });

  const licenseFeature = product.features.find((f) => f.type === 'licenseKey');
  const licenses = [];
  if (licenseFeature) {
    licenses.push(await issueLicense(ctx, {
      productId: product.id,
      customerId,
      orderId,
      subscriptionId,
      activationLimit: licenseFeature.licenseActivationLimit,
      expiresInDays: licenseFeature.licenseExpiresInDays,
    }));
  }
  // A free trial pays nothing yet: its credits come with the first paid period.
  if (quote.amount_due > 0n || !subscriptionId) await grantPurchasedCredits(ctx, customerId, transactionId, product.features);

  const updated = await completeCheckout(ctx, c.id, { customerId, orderId, subscriptionId, now });
  const sub = subscriptionId ? await tx.subscription.findUniqueOrThrow({ where: { id: subscriptionId }, include: SUBSCRIPTION_INCLUDE }) : null;
  // The completed checkout with CHECKOUT_INCLUDE's relations, from what this transaction read
  // and wrote: reading it back joined every relation again on every purchase.
  const completed: CheckoutWithRelations = {
    ...updated,
    product,
    // Step 1 held a redemption after reading it: read again, as the checkout shows it now.
    discount: c.discountId ? await tx.discount.findUniqueOrThrow({ where: { id: c.discountId } }) : null,
    customer,
    order: { ...order, licenses },
    subscription: sub,
  };

  await recordEvent(ctx, 'checkout.completed', serializeCheckout(completed, ctx.baseUrl, now) as unknown as P.InputJsonObject);
  if (sub) {
    const payload = serializeSubscription(sub, ctx.baseUrl) as unknown as P.InputJsonObject;
    await recordEvent(ctx, sub.status === 'trialing' ? 'subscription.trialing' : 'subscription.active', payload);
    // A free trial collects nothing, so there is no payment to announce until the first renewal.
    if (quote.amount_due > 0n) await recordEvent(ctx, 'subscription.paid', payload);
  }
  return completed;
}
