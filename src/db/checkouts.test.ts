import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContext, type TestContext } from '../../test/support/context.js';
import { openTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { makeCustomer, makeProduct, makeRecurringProduct, TEST_BUYER } from '../../test/support/factories.js';
import { payCheckout } from '../modules/checkouts/checkout-payment.js';
import { payCheckoutSchema } from '../modules/checkouts/checkouts.schemas.js';
import { parseInput } from '../lib/validation.js';
import { perform } from '../../test/support/context.js';
import { createCheckoutOp } from '../modules/checkouts/checkouts.operations.js';
import { createDiscountOp } from '../modules/discounts/discounts.operations.js';
import { findCheckoutOrThrow, findPayableCheckoutOrThrow, PAYABLE_INCLUDE } from '../modules/checkouts/checkouts.service.js';
import { db } from './tenant.js';

/** The hand-written checkout read, and the checkouts a creation and a purchase compose, are exactly what the client's reads answer. */
describe('findPayableCheckoutOrThrow', () => {
  let database: TestDatabase;
  let ctx: TestContext;
  beforeAll(async () => {
    database = await openTestDatabase();
    ctx = await storeContext(database);
  });
  afterAll(() => database?.close());

  it('equals the client read, with and without discount and customer', async () => {
    const product = await makeProduct(ctx, { price: 2500, currency: 'EUR', custom_fields: [{ type: 'text', key: 'company', label: 'Company' }] });
    const customer = await makeCustomer(ctx, { email: 'payable@example.com', metadata: { tier: 'gold' } });
    const discount = await perform(ctx, createDiscountOp, { name: 'Ten', code: 'PAYTEN', type: 'percentage', percentage: 10, duration: 'once', expiry_date: '2099-01-01T00:00:00Z' });
    const bare = await perform(ctx, createCheckoutOp, { product_id: product.id });
    const full = await perform(ctx, createCheckoutOp, { product_id: product.id, discount_code: discount.code, customer: { id: customer.id }, metadata: { order: 7 }, success_url: 'https://example.com/done' });
    for (const c of [bare, full]) {
      expect(await findPayableCheckoutOrThrow(ctx, c.id)).toStrictEqual(await db(ctx).checkout.findUnique({ where: { id: c.id }, include: PAYABLE_INCLUDE }));
    }
    await expect(findPayableCheckoutOrThrow(ctx, 'ch_01JZZZZZZZZZZZZZZZZZZZZZZZ')).rejects.toMatchObject({ code: 'not_found' });
    // What creating a checkout answers (composed from what it read to make it) is what reading it back gives.
    for (const c of [bare, full]) {
      expect(c).toStrictEqual({ ...(await db(ctx).checkout.findUnique({ where: { id: c.id }, include: PAYABLE_INCLUDE })), order: null, subscription: null });
    }
  });

  // A completed purchase answers (and announces) its checkout composed from what it wrote.
  it('equals the client read with CHECKOUT_INCLUDE, one-time with a license and recurring with a discount and a known customer', async () => {
    const licensed = await makeProduct(ctx, { price: 1500, currency: 'EUR', features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 2 } }] });
    const plan = await makeRecurringProduct(ctx, { price: 900, currency: 'EUR' });
    const customer = await makeCustomer(ctx, { email: 'known@example.com' });
    const discount = await perform(ctx, createDiscountOp, { name: 'Five', code: 'FIVEOFF', type: 'percentage', percentage: 5, duration: 'forever' });
    const cases = [
      { checkout: { product_id: licensed.id }, buyer: { email: 'new-buyer@example.com' } },
      { checkout: { product_id: plan.id, discount_code: discount.code, customer: { id: customer.id } }, buyer: { email: 'known@example.com' } },
    ];
    for (const { checkout, buyer } of cases) {
      const created = await perform(ctx, createCheckoutOp, checkout);
      const outcome = await payCheckout(ctx, created.id, parseInput(payCheckoutSchema, { ...TEST_BUYER, ...buyer }));
      if (outcome.kind !== 'completed') throw new Error(`not completed: ${outcome.kind}`);
      expect(outcome.checkout).toStrictEqual(await findCheckoutOrThrow(ctx, { checkout_id: created.id }));
    }
  });
});
