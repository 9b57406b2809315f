import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../context.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { storeContext } from '../../../test/support/context.js';
import type { ManualClock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { setPaymentProcessor, type PaymentProcessor } from '../payments/processor.js';
import { simulatedProcessor } from '../payments/simulated-processor.js';
import { createProduct } from '../products/products.service.js';
import { payCheckout } from './checkout-payment.js';
import { quoteCheckout } from './checkout-quote.js';
import { createCheckout, findCheckout } from './checkouts.service.js';

let db: TestDatabase;
let ctx: RequestContext & { clock: ManualClock };

beforeAll(async () => {
  db = await openTestDatabase();
  ctx = await storeContext(db.prisma);
});
afterAll(() => db?.close());

const FORM = { email: 'buyer@example.com', name: 'Buyer', country: 'US', card_number: '4242424242424242', card_expiry: '12/34', card_cvc: '123' };

async function newCheckout() {
  const product = await createProduct(ctx, { name: 'Tool', description: 'x', price: 1000, currency: 'USD', billing_type: 'onetime' });
  return createCheckout(ctx, { product_id: product.id });
}

/** Leaves a checkout as a process that died right after step 1 (or during step 2) would. */
async function cutOffAfterStart(checkoutId: string, attempt: number) {
  const c = await findCheckout(ctx, checkoutId);
  const quote = quoteCheckout({ product: c.product, units: 1, customPrice: null, discount: null, country: 'US', taxId: null });
  await db.prisma.checkout.update({
    where: { id: checkoutId },
    data: { status: 'processing', paymentAttempts: attempt, processingStartedAt: ctx.clock.now(), quote: { ...quote }, buyer: { email: 'buyer@example.com', name: 'Buyer', country: 'US', tax_id: null } },
  });
}

describe('payment recovery', () => {
  it('a submit while another is in flight waits for it instead of charging again', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    // The "other" submit is still fresh: this one must not start its own charge.
    const waiting = payCheckout(ctx, c.id, FORM);
    await new Promise((r) => setTimeout(r, 300));
    await db.prisma.checkout.update({ where: { id: c.id }, data: { status: 'pending', processingStartedAt: null } });
    const outcome = await waiting;
    expect(outcome.kind).toBe('declined'); // reports the other submit's (here: unsuccessful) result
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id } })).toBe(0);
  });

  it('a payment cut off after the processor charged is completed by the next submit, with that charge, not a second one', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    const first = await simulatedProcessor.charge({ idempotencyKey: `${c.id}:1`, amount: 1000, currency: 'USD', card: { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' }, description: 'Tool' });
    ctx.clock.advance(3 * 60 * 1000);
    const outcome = await payCheckout(ctx, c.id, { ...FORM, card_number: '4000000000000002' });
    expect(outcome.kind).toBe('completed');
    const txns = await db.prisma.transaction.findMany({ where: { checkoutId: c.id } });
    expect(txns).toHaveLength(1);
    expect(txns[0]).toMatchObject({ status: 'paid', amount: 1000, processorReference: first.status === 'succeeded' ? first.reference : 'x' });
  });

  it('a payment cut off before it reached the processor is reopened and paid with the new submit', async () => {
    const c = await newCheckout();
    await cutOffAfterStart(c.id, 1);
    ctx.clock.advance(3 * 60 * 1000);
    const outcome = await payCheckout(ctx, c.id, FORM);
    expect(outcome.kind).toBe('completed');
    const after = await findCheckout(ctx, c.id);
    expect(after.paymentAttempts).toBe(2);
    expect(await db.prisma.transaction.count({ where: { checkoutId: c.id, status: 'paid' } })).toBe(1);
  });

  it('when the processor cannot be reached the checkout stays processing and nothing is recorded as paid', async () => {
    const c = await newCheckout();
    const unreachable: PaymentProcessor = {
      name: 'down',
      charge: async () => {
        throw new Error('ECONNRESET');
      },
      lookup: async () => null,
    };
    setPaymentProcessor('test', unreachable);
    try {
      const err = await payCheckout(ctx, c.id, FORM).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('unavailable');
    } finally {
      setPaymentProcessor('test', simulatedProcessor);
    }
    expect((await findCheckout(ctx, c.id)).status).toBe('processing');
    expect(await db.prisma.order.count({ where: { checkout: { id: c.id } } })).toBe(0);
  });

  it('a pay-what-you-want amount times the units cannot pass the largest payment', async () => {
    const product = await createProduct(ctx, { name: 'Gift', description: 'x', price: 500, currency: 'USD', billing_type: 'onetime', pay_what_you_want: true });
    const c = await createCheckout(ctx, { product_id: product.id, units: 10 });
    const err = await payCheckout(ctx, c.id, { ...FORM, amount: 99_999_999 }).catch((e: unknown) => e);
    expect((err as AppError).issues[0]?.path).toEqual(['amount']);
    expect((await findCheckout(ctx, c.id)).status).toBe('pending');
    expect(await payCheckout(ctx, c.id, { ...FORM, amount: 1_000 })).toMatchObject({ kind: 'completed' });
    expect(await db.prisma.order.findFirst({ where: { productId: product.id } })).toMatchObject({ subTotal: 10_000 });
  });

  it('a checkout older than a day is expired and cannot be paid', async () => {
    const c = await newCheckout();
    ctx.clock.advance(24 * 60 * 60 * 1000);
    const err = await payCheckout(ctx, c.id, FORM).catch((e: unknown) => e);
    expect((err as AppError).message).toMatch(/expired/);
  });
});
