import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../lib/clock.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { perform, storeContext, type TestContext } from '../../../test/support/context.js';
import { makeProduct } from '../../../test/support/factories.js';
import { JobRunner } from '../../jobs/job-runner.js';
import { scheduledJobs, scheduleJob } from '../../jobs/scheduled-jobs.js';
import { AppError } from '../../lib/errors.js';
import { MAX_WIRE_AMOUNT } from '../../lib/money.js';
import { parseInput } from '../../lib/validation.js';
import { createLogger } from '../../logger.js';
import { createDiscountOp, retrieveDiscountOp } from '../discounts/discounts.operations.js';
import { setPaymentProcessor, type ChargeResult, type PaymentProcessor } from '../payments/processor.js';
import { simulatedProcessor } from '../payments/simulated-processor.js';
import { payCheckout, RECONCILE_JOB, STALE_PROCESSING_MS } from './checkout-payment.js';
import { quoteCheckout, storedQuote } from './checkout-quote.js';
import { reconcileCheckoutJob } from './checkout-reconciliation.js';
import { createCheckoutOp } from './checkouts.operations.js';
import { payCheckoutSchema } from './checkouts.schemas.js';
import { findPayableCheckoutOrThrow } from './checkouts.service.js';

/** A processor's refund side, for test processors that only change how charges behave. */
const refundsOf = (p: PaymentProcessor) => ({ refund: p.refund.bind(p), lookupRefund: p.lookupRefund.bind(p) });

let db: TestDatabase;
let ctx: TestContext;

beforeAll(async () => {
  db = await openTestDatabase();
  ctx = await storeContext(db);
});
afterAll(() => db?.close());

const FORM = { email: 'buyer@example.com', name: 'Buyer', country: 'US', card_number: '4242424242424242', card_expiry: '12/34', card_cvc: '123' };
/** The hosted page's form as payCheckout takes it: checked by the shared schema. */
const form = (fields: Record<string, unknown> = {}) => parseInput(payCheckoutSchema, { ...FORM, ...fields });

async function newCheckout(on: TestContext = ctx, checkout: Record<string, unknown> = {}) {
  const product = await makeProduct(on, { name: 'Tool', description: 'x', price: 1000, currency: 'USD' });
  return perform(on, createCheckoutOp, { product_id: product.id, ...checkout });
}

/** Leaves a checkout as a process that died right after step 1 (or during step 2) would, its reconciliation job scheduled. */
async function cutOffAfterStart(checkoutId: string, attempt: number) {
  const c = await findPayableCheckoutOrThrow(ctx, checkoutId);
  const quote = quoteCheckout({ product: c.product, units: 1, customPrice: null, discount: null, country: 'US', taxId: null });
  const now = ctx.clock.now();
  await db.prisma.checkout.update({
    where: { id: checkoutId },
    data: { status: 'processing', paymentAttempts: attempt, processingStartedAt: now, quote: storedQuote(quote), buyer: { email: 'buyer@example.com', name: 'Buyer', country: 'US', tax_id: null } },
  });
  await scheduleJob(ctx, RECONCILE_JOB, checkoutId, new Date(now.getTime() + STALE_PROCESSING_MS));
}

describe('payment recovery', () => {
  it('a submit while another is in flight waits for it instead of charging again', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    // The "other" submit is still fresh: this one must not start its own charge. Its first step
    // reads the clock once it holds the row and has read the checkout; from then on it waits.
    let read = false;
    const watched: Clock = { now: () => ((read = true), ctx.clock.now()) };
    const waiting = payCheckout({ ...ctx, clock: watched }, c.id, form());
    await expect.poll(() => read, { timeout: 10_000, interval: 10 }).toBe(true);
    await db.prisma.checkout.update({ where: { id: c.id }, data: { status: 'pending', processingStartedAt: null } });
    const outcome = await waiting;
    expect(outcome.kind).toBe('declined'); // reports the other submit's (here: unsuccessful) result
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id } })).toBe(0);
  });

  it('a payment cut off after the processor charged is completed by the next submit, with that charge, not a second one', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    const first = await simulatedProcessor.charge({ idempotencyKey: `${c.id}:1`, amount: 1000n, currency: 'USD', source: { card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' } }, description: 'Tool' });
    ctx.clock.advance(3 * 60 * 1000);
    const outcome = await payCheckout(ctx, c.id, form({ card_number: '4000000000000002' }));
    expect(outcome.kind).toBe('completed');
    const txns = await db.prisma.transaction.findMany({ where: { checkoutId: c.id } });
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({ status: 'paid', amount: 1000n, processorReference: first.status === 'succeeded' ? first.reference : 'x' });
  });

  it('a payment cut off before it reached the processor is reopened and paid with the new submit', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    ctx.clock.advance(3 * 60 * 1000);
    const outcome = await payCheckout(ctx, c.id, form());
    expect(outcome.kind).toBe('completed');
    const after = await findPayableCheckoutOrThrow(ctx, c.id);
    expect(after.paymentAttempts).toBe(2);
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id, status: 'paid' } })).toBe(1);
  });

  it('when the processor cannot be reached the checkout stays processing and nothing is recorded as paid', async () => {
    const c = await newCheckout();
    const unreachable: PaymentProcessor = {
      ...refundsOf(simulatedProcessor),
      name: 'down',
      charge: async () => {
        throw new Error('ECONNRESET');
      },
      lookup: async () => null,
    };
    setPaymentProcessor('test', unreachable);
    try {
      const err = await payCheckout(ctx, c.id, form()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('processor_unavailable');
    } finally {
      setPaymentProcessor('test', simulatedProcessor);
    }
    expect((await findPayableCheckoutOrThrow(ctx, c.id)).status).toBe('processing');
    expect(await db.prisma.order.count({ where: { checkout: { id: c.id } } })).toBe(0);
  });

  it('a pay-what-you-want amount times the units cannot pass the largest payment', async () => {
    const product = await makeProduct(ctx, { name: 'Gift', description: 'x', price: 500, currency: 'USD', pay_what_you_want: true });
    const c = await perform(ctx, createCheckoutOp, { product_id: product.id, units: 10 });
    // Each unit's amount is within what one payment may be; ten of them are not.
    const err = await payCheckout(ctx, c.id, form({ amount: Number(MAX_WIRE_AMOUNT / 10n) + 1 })).catch((e: unknown) => e);
    expect((err as AppError).issues[0]?.path).toEqual(['amount']);
    expect((await findPayableCheckoutOrThrow(ctx, c.id)).status).toBe('pending');
    expect(await payCheckout(ctx, c.id, form({ amount: 1_000 }))).toMatchObject({ kind: 'completed' });
    expect(await db.prisma.order.findFirst({ where: { productId: product.id } })).toMatchObject({ subTotal: 10_000n });
  });

  it('a checkout older than a day is expired and cannot be paid', async () => {
    const c = await newCheckout();
    ctx.clock.advance(24 * 60 * 60 * 1000);
    const err = await payCheckout(ctx, c.id, form()).catch((e: unknown) => e);
    expect((err as AppError).message).toMatch(/expired/);
  });
});

describe('reconciliation job', () => {
  /** A store of its own, so that the runner meets only the jobs of these cases. */
  let rctx: TestContext;
  let runner: JobRunner;
  const logger = createLogger('silent');

  beforeAll(async () => {
    rctx = await storeContext(db);
    const clock = rctx.clock;
    runner = new JobRunner({
      db: db.prisma,
      clock,
      logger,
      kinds: [scheduledJobs({ handlers: [reconcileCheckoutJob], envFor: () => ({ data: rctx.data, mode: 'test', clock, baseUrl: rctx.baseUrl }), logger })],
    });
  });

  const tenant = () => ({ storeId: rctx.storeId, mode: rctx.mode });
  const jobOf = (checkoutId: string) => db.prisma.job.findFirst({ where: { kind: RECONCILE_JOB, subjectId: checkoutId } });

  /** Pays with `processor` plugged in, expecting the payment to be cut off (outcome unknown). */
  async function payCutOff(checkoutId: string, processor: PaymentProcessor) {
    setPaymentProcessor('test', processor);
    try {
      const err = await payCheckout(rctx, checkoutId, form()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('processor_unavailable');
    } finally {
      setPaymentProcessor('test', simulatedProcessor);
    }
    expect((await findPayableCheckoutOrThrow(rctx, checkoutId)).status).toBe('processing');
    expect(await jobOf(checkoutId)).toMatchObject({ status: 'pending', storeId: rctx.storeId, mode: 'test' });
  }

  it('completes a payment the processor charged but whose process was cut off, once the store clock passes 2 minutes', async () => {
    const c = await newCheckout(rctx);
    let charged: ChargeResult | undefined;
    // Charges, then loses the answer: the process "dies" between the processor and recording it.
    await payCutOff(c.id, {
      ...refundsOf(simulatedProcessor),
      name: 'cut-off',
      charge: async (request) => {
        charged = await simulatedProcessor.charge(request);
        throw new Error('socket hang up');
      },
      lookup: (key) => simulatedProcessor.lookup(key),
    });
    expect(charged?.status).toBe('succeeded');
    const reference = charged?.status === 'succeeded' ? charged.reference : 'none';

    // Not due yet: nothing runs before the store's clock has moved 2 minutes on.
    expect(await runner.runOnce(tenant())).toEqual({ jobs: 0 });
    expect((await findPayableCheckoutOrThrow(rctx, c.id)).status).toBe('processing');

    rctx.clock.advance(STALE_PROCESSING_MS + 1_000);
    expect(await runner.runOnce(tenant())).toEqual({ jobs: 1 });

    const txns = await db.prisma.transaction.findMany({ where: { checkoutId: c.id } });
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({ status: 'paid', amount: 1000n, processorReference: reference });
    const after = await findPayableCheckoutOrThrow(rctx, c.id);
    expect(after.status).toBe('completed');
    expect(after.orderId).not.toBeNull();
    expect(await db.prisma.order.count({ where: { id: after.orderId!, checkout: { id: c.id } } })).toBe(1);
    expect(await jobOf(c.id)).toMatchObject({ status: 'succeeded', attemptCount: 1, lastError: null });

    // Settled once: a second round finds nothing to do and charges nothing more.
    expect(await runner.runOnce(tenant())).toEqual({ jobs: 0 });
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id } })).toBe(1);
    expect(await db.prisma.event.count({ where: { type: 'checkout.completed', payload: { path: ['id'], equals: c.id } } })).toBe(1);
  });

  it('reopens a checkout whose charge never reached the processor, and gives the discount redemption back', async () => {
    const discount = await perform(rctx, createDiscountOp, { name: 'Ten', code: 'RECON10', type: 'percentage', percentage: 10, duration: 'once', max_redemptions: 1 });
    const c = await newCheckout(rctx, { discount_code: 'RECON10' });
    const redeemed = async () => (await perform(rctx, retrieveDiscountOp, { discount_id: discount.id })).timesRedeemed;
    const neverReached: PaymentProcessor = {
      ...refundsOf(simulatedProcessor),
      name: 'never-reached',
      charge: async () => {
        throw new Error('ECONNREFUSED');
      },
      lookup: async () => null,
    };
    await payCutOff(c.id, neverReached);
    const held = await findPayableCheckoutOrThrow(rctx, c.id);
    expect(held.discountReserved).toBe(true);
    expect(await redeemed()).toBe(1);

    rctx.clock.advance(STALE_PROCESSING_MS + 1_000);
    setPaymentProcessor('test', neverReached);
    try {
      expect(await runner.runOnce(tenant())).toEqual({ jobs: 1 });
    } finally {
      setPaymentProcessor('test', simulatedProcessor);
    }

    const after = await findPayableCheckoutOrThrow(rctx, c.id);
    expect(after).toMatchObject({ status: 'pending', discountReserved: false, processingStartedAt: null, orderId: null });
    expect(await redeemed()).toBe(0);
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id } })).toBe(0);
    expect(await jobOf(c.id)).toMatchObject({ status: 'succeeded' });
    expect(await runner.runOnce(tenant())).toEqual({ jobs: 0 });

    // Reopened for real: the buyer can pay it now, with the discount.
    expect(await payCheckout(rctx, c.id, form())).toMatchObject({ kind: 'completed' });
    expect(await redeemed()).toBe(1);
    expect(await db.prisma.order.findFirst({ where: { checkout: { id: c.id } } })).toMatchObject({ discountAmount: 100n, amountDue: 900n });
  });
});
