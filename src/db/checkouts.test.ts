import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContext, type TestContext } from '../../test/support/context.js';
import { openTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { makeCustomer, makeProduct } from '../../test/support/factories.js';
import { perform } from '../../test/support/context.js';
import { createCheckoutOp } from '../modules/checkouts/checkouts.operations.js';
import { createDiscountOp } from '../modules/discounts/discounts.operations.js';
import { findPayableCheckoutOrThrow, PAYABLE_INCLUDE } from '../modules/checkouts/checkouts.service.js';
import { db } from './tenant.js';

/** The hand-written checkout read (with the product read) answers exactly what the client's read with PAYABLE_INCLUDE answers. */
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
  });
});
