import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_AMOUNT } from '../../lib/schemas.js';
import { parseInput } from '../../lib/validation.js';
import { releaseRedemption, reserveRedemption } from '../discounts/discounts.service.js';
import type { ChargeResult } from '../payments/processor.js';
import { normalizeTaxId } from '../tax/tax.js';
import { validateFieldValues } from './checkout-fields.js';
import { quoteCheckout, type Quote } from './checkout-quote.js';
import { completePurchase } from './complete-purchase.js';
import { checkoutStatus, PAYABLE_INCLUDE, requirePaymentProcessor, type PayableCheckout } from './checkouts.service.js';
import { checkoutFields } from './checkouts.serializer.js';
import { payCheckoutSchema, type PayCheckoutInput } from './checkouts.schemas.js';

/** The context of a payment: the checkout's store, in the environment of the listener that serves the page. */
export type PaymentContext = RequestContext;

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

/** A payment still "processing" after this long was cut off (crash, lost connection) and may be resumed. */
const STALE_PROCESSING_MS = 2 * 60 * 1000;
/** How long a second submit of the same checkout waits for the first to finish. */
const WAIT_FOR_FIRST_SUBMIT_MS = 15_000;
const TX_OPTIONS = { maxWait: 10_000, timeout: 20_000 };

const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined. Try another card.',
  insufficient_funds: 'Your card has insufficient funds. Try another card.',
  incorrect_cvc: "Your card's security code is incorrect. Check it and try again.",
  expired_card: 'Your card has expired. Try another card.',
};

const chargeKey = (checkoutId: string, attempt: number) => `${checkoutId}:${attempt}`;

async function lockCheckout(tx: P.TransactionClient, ctx: PaymentContext, id: string): Promise<PayableCheckout> {
  // The row lock serialises every submit of this checkout: the state read below is the truth.
  await tx.$queryRaw`SELECT 1 FROM "Checkout" WHERE "id" = ${id} FOR UPDATE`;
  const c = await tx.checkout.findFirst({ where: { id, storeId: ctx.storeId, mode: ctx.mode }, include: PAYABLE_INCLUDE });
  if (!c) throw new AppError('not_found', `Checkout ${id} not found`);
  return c;
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

type Started =
  | ({ kind: 'charge' } & Attempt)
  | ({ kind: 'resume' } & Attempt)
  | { kind: 'wait' }
  | PaymentOutcome;

/**
 * Pays a checkout: the hosted page's "Pay" button, and the benchmark's buyer. Three steps, so
 * that no database transaction stays open while a processor is called:
 * 1. under a row lock, check the form, fix the amounts, hold the discount redemption and mark
 *    the checkout `processing` (a second submit now waits instead of charging again);
 * 2. charge, with an idempotency key unique to this attempt;
 * 3. under the lock again, either write the purchase and its events (one transaction), or
 *    record the declined attempt, give the redemption back and reopen the checkout.
 */
export async function payCheckout(ctx: PaymentContext, checkoutId: string, raw: unknown): Promise<PaymentOutcome> {
  const processor = requirePaymentProcessor(ctx.mode);
  const deadline = Date.now() + WAIT_FOR_FIRST_SUBMIT_MS;
  for (;;) {
    const started = await ctx.db.$transaction((tx) => startPayment(tx, ctx, checkoutId, raw), TX_OPTIONS);
    if (started.kind === 'wait') return waitForOtherSubmit(ctx, checkoutId, deadline);
    if (started.kind !== 'charge' && started.kind !== 'resume') return started;
    const card = started.kind === 'charge' ? parseInput(payCheckoutSchema, raw) : null;
    let result: ChargeResult | null;
    try {
      result = card
        ? await processor.charge({
            idempotencyKey: chargeKey(checkoutId, started.attempt),
            amount: started.quote.amount_due,
            currency: started.quote.currency,
            card: { number: card.card_number, expMonth: card.card_expiry.month, expYear: card.card_expiry.year, cvc: card.card_cvc },
            description: started.checkout.product.name,
          })
        : await processor.lookup(chargeKey(checkoutId, started.attempt));
    } catch (err) {
      // The outcome is unknown: leave the checkout `processing`; after STALE_PROCESSING_MS the next
      // submit asks the processor what happened to this attempt instead of charging again.
      throw new AppError('unavailable', 'The payment could not be confirmed. Nothing more will be charged; try again in a few minutes.');
    }
    const outcome = await ctx.db.$transaction((tx) => finishPayment(tx, ctx, started, result), TX_OPTIONS);
    if (outcome || started.kind === 'charge') return outcome ?? (await lastOutcome(ctx, checkoutId));
    // A resumed attempt that never reached the processor reopened the checkout: pay it now.
  }
}

async function startPayment(tx: P.TransactionClient, ctx: PaymentContext, id: string, raw: unknown): Promise<Started> {
  const c = await lockCheckout(tx, ctx, id);
  const now = ctx.clock.now();
  const status = checkoutStatus(c, now);
  if (status === 'completed') return { kind: 'completed', checkout: c };
  if (status === 'expired') throw new AppError('bad_request', 'This checkout has expired. Start a new one from the seller\'s page.');
  if (status === 'processing') {
    const startedAt = c.processingStartedAt?.getTime() ?? 0;
    if (now.getTime() - startedAt < STALE_PROCESSING_MS) return { kind: 'wait' };
    return {
      kind: 'resume',
      checkout: c,
      attempt: c.paymentAttempts,
      quote: c.quote as unknown as Quote,
      buyer: c.buyer as unknown as Buyer,
      discountHeld: c.discountReserved,
    };
  }

  const input: PayCheckoutInput = parseInput(payCheckoutSchema, raw);
  const fields = validateFieldValues(checkoutFields(c), input.custom_fields);
  if (fields.issues.length) throw new AppError('validation_failed', 'Validation failed', fields.issues);
  const taxId = input.tax_id ? normalizeTaxId(input.tax_id) : null;
  if (input.tax_id && !taxId) throw new AppError('validation_failed', 'Validation failed', [{ path: ['tax_id'], message: 'is not a valid tax id' }]);
  const quote = quoteCheckout({
    product: c.product,
    units: c.units,
    customPrice: c.customPrice,
    chosenPrice: input.amount ?? null,
    discount: c.discount,
    country: input.country,
    taxId,
  });
  if (quote.amount_due > MAX_AMOUNT) {
    // A pay-what-you-want amount times the units can pass what one payment may be.
    throw new AppError('validation_failed', 'Validation failed', [{ path: ['amount'], message: `the total must not exceed ${MAX_AMOUNT} in minor units` }]);
  }
  if (input.expected_total !== undefined && input.expected_total !== quote.amount_due) {
    return { kind: 'total_changed', checkout: c, quote };
  }
  if (c.discountId && !c.discountReserved && !(await reserveRedemption(tx, c.discountId, now))) {
    throw new AppError('bad_request', 'This discount code has just been used up or has expired.', [
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
  await tx.checkout.update({
    where: { id: c.id },
    data: {
      status: 'processing',
      processingStartedAt: now,
      paymentAttempts: attempt,
      discountReserved: c.discountId !== null,
      buyer: { ...buyer },
      quote: { ...quote },
      customFields: fields.values,
    },
  });
  // The charge needs only the product and the amounts; the row as read under the lock has them.
  return { kind: 'charge', checkout: c, attempt, quote, buyer, discountHeld: c.discountId !== null };
}

/** Step 3. Returns null when a resumed attempt turned out never to have been charged (checkout reopened). */
async function finishPayment(tx: P.TransactionClient, ctx: PaymentContext, started: Attempt, result: ChargeResult | null): Promise<PaymentOutcome | null> {
  const { checkout: c, quote, buyer } = started;
  // One conditional UPDATE both locks the row and claims the settling of this attempt: it
  // matches only while the attempt is still the checkout's current one, so a resumed submit
  // and the original can never both settle it.
  const claimed = await tx.checkout.updateMany({
    where: { id: c.id, status: 'processing', paymentAttempts: started.attempt },
    data: { processingStartedAt: null },
  });
  if (claimed.count === 0) return null; // someone else settled it; the caller reports what they decided
  if (result?.status === 'succeeded') {
    return { kind: 'completed', checkout: await completePurchase(tx, ctx, c, quote, buyer, result.reference) };
  }
  if (result) {
    await tx.transaction.create({
      data: {
        id: newId('transaction'),
        storeId: c.storeId,
        mode: c.mode,
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
  if (c.discountId && started.discountHeld) await releaseRedemption(tx, c.discountId);
  const reopened = await tx.checkout.update({
    where: { id: c.id },
    data: { status: 'pending', processingStartedAt: null, discountReserved: false },
    include: PAYABLE_INCLUDE,
  });
  if (!result) return null;
  return { kind: 'declined', checkout: reopened, message: DECLINE_MESSAGES[result.code] ?? result.message };
}

/**
 * A second submit of a checkout that is being paid (double click, two tabs) does not start a
 * payment of its own: it waits for the first one and answers with its outcome.
 */
async function waitForOtherSubmit(ctx: PaymentContext, id: string, deadline: number): Promise<PaymentOutcome> {
  for (;;) {
    const row = await ctx.db.checkout.findFirst({ where: { id, storeId: ctx.storeId, mode: ctx.mode }, select: { status: true } });
    if (row?.status !== 'processing') return lastOutcome(ctx, id);
    if (Date.now() > deadline) throw new AppError('conflict', 'This checkout is being paid right now; refresh the page in a moment.');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What happened to a checkout another submit resolved: completed, or its last decline. */
async function lastOutcome(ctx: PaymentContext, id: string): Promise<PaymentOutcome> {
  const c = await ctx.db.checkout.findFirstOrThrow({ where: { id, storeId: ctx.storeId, mode: ctx.mode }, include: PAYABLE_INCLUDE });
  if (c.status === 'completed') return { kind: 'completed', checkout: c };
  const declined = await ctx.db.transaction.findFirst({ where: { checkoutId: id, status: 'declined' }, orderBy: { id: 'desc' } });
  return { kind: 'declined', checkout: c, message: DECLINE_MESSAGES[declined?.declineCode ?? ''] ?? 'The payment did not go through. Try again.' };
}
