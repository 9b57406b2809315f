import type { RequestContext } from '../../context.js';
import { claimSettling, markProcessing } from '../../db/checkout-steps.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { AppError, invalidField } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_WIRE_AMOUNT } from '../../lib/money.js';
import { cancelJob, scheduleJob } from '../../jobs/scheduled-jobs.js';
import { releaseRedemption, reserveRedemption } from '../discounts/discounts.service.js';
import type { ChargeResult } from '../payments/processor.js';
import { normalizeTaxId } from '../tax/tax.js';
import { validateFieldValues } from './checkout-fields.js';
import { quoteCheckout, quoteFromStored, storedQuote, type Quote } from './checkout-quote.js';
import { completePurchase } from './complete-purchase.js';
import { checkoutStatus, findPayableCheckoutOrThrow, PAYABLE_INCLUDE, requirePaymentProcessor, type PayableCheckout } from './checkouts.service.js';
import { checkoutFields } from './checkouts.serializer.js';
import type { PayCheckoutInput } from './checkouts.schemas.js';

export interface Buyer {
  email: string;
  name: string;
  country: string;
  tax_id: string | null;
}

export type PaymentOutcome =
  | { kind: 'completed'; checkout: PayableCheckout }
  | { kind: 'declined'; checkout: PayableCheckout; message: string }
  | { kind: 'total_changed'; checkout: PayableCheckout; quote: Quote };

/** A payment still "processing" after this long was cut off (crash, lost connection) and may be settled. */
export const STALE_PROCESSING_MS = 2 * 60 * 1000;
/** How long a second submit of the same checkout waits for the first to finish. */
const WAIT_FOR_FIRST_SUBMIT_MS = 15_000;

/** The job that settles a payment cut off after step 1, if the buyer does not come back (see checkout-reconciliation.ts). */
export const RECONCILE_JOB = 'checkout.reconcile';

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined. Try another card.',
  insufficient_funds: 'Your card has insufficient funds. Try another card.',
  incorrect_cvc: "Your card's security code is incorrect. Check it and try again.",
  expired_card: 'Your card has expired. Try another card.',
};

export const chargeKey = (checkoutId: string, attempt: number) => `${checkoutId}:${attempt}`;

/** The row lock serialises every submit of a checkout: the state read after it is the truth. */
async function lockCheckout(ctx: RequestContext, id: string): Promise<PayableCheckout> {
  if (!(await lockRow(ctx, 'Checkout', id))) throw new AppError('not_found', `Checkout ${id} not found`);
  return findPayableCheckoutOrThrow(ctx, id);
}

/** A payment attempt as step 1 fixed it: what step 3 settles, without reading it again. */
interface Attempt {
  /** The checkout as read under the lock in step 1 (product, discount, customer). */
  checkout: PayableCheckout;
  attempt: number;
  quote: Quote;
  buyer: Buyer;
  /** Whether a discount redemption is held for this attempt. */
  discountHeld: boolean;
}

type Started = ({ kind: 'charge' } & Attempt) | ({ kind: 'resume' } & Attempt) | { kind: 'wait' } | PaymentOutcome;

/**
 * Pays a checkout: the hosted page's "Pay" button, and the benchmark's buyer. Three steps, so
 * that no database transaction stays open while a processor is called:
 * 1. under a row lock, check the form, fix the amounts, hold the discount redemption, mark
 *    the checkout `processing` (a second submit now waits instead of charging again) and
 *    schedule its reconciliation, should this process die before step 3;
 * 2. charge, with an idempotency key unique to this attempt;
 * 3. under the lock again, either write the purchase and its events (one transaction), or
 *    record the declined attempt, give the redemption back and reopen the checkout.
 */
export async function payCheckout(ctx: RequestContext, checkoutId: string, input: PayCheckoutInput): Promise<PaymentOutcome> {
  const processor = requirePaymentProcessor(ctx.mode);
  const deadline = Date.now() + WAIT_FOR_FIRST_SUBMIT_MS;
  for (;;) {
    const started = await inTransaction(ctx, (tx) => startPayment(tx, checkoutId, input));
    if (started.kind === 'wait') return waitForOtherSubmit(ctx, checkoutId, deadline);
    if (started.kind !== 'charge' && started.kind !== 'resume') return started;
    let result: ChargeResult | null;
    try {
      result =
        started.kind === 'charge'
          ? await processor.charge({
              idempotencyKey: chargeKey(checkoutId, started.attempt),
              amount: started.quote.amount_due,
              currency: started.quote.currency,
              source: {
                card: { number: input.card_number, expMonth: input.card_expiry.month, expYear: input.card_expiry.year, cvc: input.card_cvc },
                // A subscription charges the same card at each renewal.
                save: started.checkout.product.billingType === 'recurring',
              },
              description: started.checkout.product.name,
            })
          : await processor.lookup(chargeKey(checkoutId, started.attempt));
    } catch {
      // The outcome is unknown: leave the checkout `processing`; the next submit after
      // STALE_PROCESSING_MS, or the reconciliation job, asks the processor what happened to this
      // attempt instead of charging again.
      throw new AppError('processor_unavailable', 'The payment could not be confirmed. Nothing more will be charged; try again in a few minutes.');
    }
    const outcome = await inTransaction(ctx, (tx) => finishPayment(tx, started, result));
    if (outcome || started.kind === 'charge') return outcome ?? (await lastOutcome(ctx, checkoutId));
    // A resumed attempt that never reached the processor reopened the checkout: pay it now.
  }
}

/** The attempt a stale `processing` checkout was left in, to be settled from the processor's record. */
function staleAttempt(c: PayableCheckout): Attempt {
  return { checkout: c, attempt: c.paymentAttempts, quote: quoteFromStored(c.quote), buyer: c.buyer as unknown as Buyer, discountHeld: c.discountReserved };
}

async function startPayment(ctx: RequestContext, id: string, input: PayCheckoutInput): Promise<Started> {
  const c = await lockCheckout(ctx, id);
  const now = ctx.clock.now();
  const status = checkoutStatus(c, now);
  if (status === 'completed') return { kind: 'completed', checkout: c };
  if (status === 'expired') throw new AppError('checkout_expired', "This checkout has expired. Start a new one from the seller's page.");
  if (status === 'processing') {
    const startedAt = c.processingStartedAt?.getTime() ?? 0;
    if (now.getTime() - startedAt < STALE_PROCESSING_MS) return { kind: 'wait' };
    return { kind: 'resume', ...staleAttempt(c) };
  }

  const fields = validateFieldValues(checkoutFields(c), input.custom_fields);
  if (fields.issues.length) throw new AppError('validation_failed', 'Validation failed', fields.issues);
  const taxId = input.tax_id ? normalizeTaxId(input.tax_id) : null;
  if (input.tax_id && !taxId) throw invalidField(['tax_id'], 'is not a valid tax id');
  const quote = quoteCheckout({
    product: c.product,
    units: c.units,
    customPrice: c.customPrice,
    chosenPrice: input.amount ?? null,
    discount: c.discount,
    country: input.country,
    taxId,
  });
  // A pay-what-you-want amount times the units can pass what one payment may be.
  if (quote.amount_due > MAX_WIRE_AMOUNT) throw invalidField(['amount'], `the total must not exceed ${MAX_WIRE_AMOUNT} in minor units`);
  if (input.expected_total !== undefined && input.expected_total !== quote.amount_due) {
    return { kind: 'total_changed', checkout: c, quote };
  }
  if (c.discountId && !c.discountReserved && !(await reserveRedemption(ctx, c.discountId))) {
    throw new AppError('discount_exhausted', 'This discount code has just been used up or has expired.', [
      { path: ['discount_code'], message: 'this discount code has reached its maximum number of redemptions or has expired' },
    ]);
  }
  const buyer: Buyer = {
    email: c.customer?.email ?? input.email.toLowerCase(),
    name: input.name,
    country: input.country,
    tax_id: taxId,
  };
  const attempt = c.paymentAttempts + 1;
  await markProcessing(ctx, c.id, { now, attempt, discountReserved: c.discountId !== null, buyer: { ...buyer }, quote: storedQuote(quote), customFields: fields.values });
  await scheduleJob(ctx, RECONCILE_JOB, c.id, new Date(now.getTime() + STALE_PROCESSING_MS));
  // The charge needs only the product and the amounts; the row as read under the lock has them.
  return { kind: 'charge', checkout: c, attempt, quote, buyer, discountHeld: c.discountId !== null };
}

/**
 * Step 3. Returns null when a resumed attempt turned out never to have been charged (checkout reopened).
 * `byJob`: the reconciliation job itself is settling; its runner records the job's outcome, so it is not cancelled.
 */
async function finishPayment(ctx: RequestContext, started: Attempt, result: ChargeResult | null, byJob = false): Promise<PaymentOutcome | null> {
  const { checkout: c, quote, buyer } = started;
  // One conditional UPDATE both locks the row and claims the settling of this attempt: it
  // matches only while the attempt is still the checkout's current one, so a resumed submit,
  // the reconciliation job and the original can never settle it twice.
  if (!(await claimSettling(ctx, c.id, started.attempt))) return null; // someone else settled it; the caller reports what they decided
  if (!byJob) await cancelJob(ctx, RECONCILE_JOB, c.id);
  if (result?.status === 'succeeded') {
    return { kind: 'completed', checkout: await completePurchase(ctx, c, quote, buyer, result) };
  }
  if (result) {
    await db(ctx).transaction.create({
      data: {
        id: newId('transaction'),
        customerId: c.customerId,
        checkoutId: c.id,
        amount: quote.amount_due,
        discountAmount: quote.discount_amount,
        taxAmount: quote.tax_amount,
        taxCountry: quote.tax_country,
        currency: quote.currency,
        type: c.product.billingType === 'recurring' ? 'invoice' : 'payment',
        status: 'declined',
        declineCode: result.code,
        description: `Declined: ${c.product.name}`,
        createdAt: ctx.clock.now(),
      },
    });
  }
  if (c.discountId && started.discountHeld) await releaseRedemption(ctx, c.discountId);
  const reopened = await db(ctx).checkout.update({
    where: { id: c.id },
    data: { status: 'pending', processingStartedAt: null, discountReserved: false },
    include: PAYABLE_INCLUDE,
  });
  if (!result) return null;
  return { kind: 'declined', checkout: reopened, message: DECLINE_MESSAGES[result.code] ?? result.message };
}

/**
 * Settles a payment left `processing` by a process that died between charging and recording,
 * without waiting for the buyer to come back: the processor's record of the attempt decides
 * (charged: the purchase is written with that charge; never reached: the checkout reopens).
 * Safe to run twice and beside a buyer's resumed submit: the settling is claimed by one
 * conditional update. An unreachable processor throws, and the job tries again later.
 */
export async function reconcilePayment(ctx: RequestContext, checkoutId: string): Promise<'settled' | 'nothing_to_do' | 'not_yet'> {
  const c = await findPayableCheckoutOrThrow(ctx, checkoutId);
  if (c.status !== 'processing') return 'nothing_to_do';
  const dueAt = (c.processingStartedAt?.getTime() ?? 0) + STALE_PROCESSING_MS;
  if (ctx.clock.now().getTime() < dueAt) {
    // A newer attempt started after this job was scheduled; settle that one when it is stale.
    await inTransaction(ctx, (tx) => scheduleJob(tx, RECONCILE_JOB, checkoutId, new Date(dueAt)));
    return 'not_yet';
  }
  const started = staleAttempt(c);
  const result = await requirePaymentProcessor(ctx.mode).lookup(chargeKey(checkoutId, started.attempt));
  await inTransaction(ctx, (tx) => finishPayment(tx, started, result, true));
  return 'settled';
}

/**
 * A second submit of a checkout that is being paid (double click, two tabs) does not start a
 * payment of its own: it waits for the first one and answers with its outcome.
 */
async function waitForOtherSubmit(ctx: RequestContext, id: string, deadline: number): Promise<PaymentOutcome> {
  for (;;) {
    const row = await db(ctx).checkout.findUnique({ where: { id }, select: { status: true } });
    if (row?.status !== 'processing') return lastOutcome(ctx, id);
    if (Date.now() > deadline) throw new AppError('checkout_in_progress', 'This checkout is being paid right now; refresh the page in a moment.');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What happened to a checkout another submit resolved: completed, or its last decline. */
async function lastOutcome(ctx: RequestContext, id: string): Promise<PaymentOutcome> {
  const c = await findPayableCheckoutOrThrow(ctx, id);
  if (c.status === 'completed') return { kind: 'completed', checkout: c };
  const declined = await db(ctx).transaction.findFirst({ where: { checkoutId: id, status: 'declined' }, orderBy: { id: 'desc' } });
  return { kind: 'declined', checkout: c, message: DECLINE_MESSAGES[declined?.declineCode ?? ''] ?? 'The payment did not go through. Try again.' };
}
