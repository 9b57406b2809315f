import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContext, type TestContext } from '../../test/support/context.js';
import { openTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { makeProduct, makeRecurringProduct } from '../../test/support/factories.js';
import { Prisma } from '../generated/prisma/client.js';
import { newId } from '../lib/ids.js';
import { PRODUCT_INCLUDE } from '../modules/products/products.service.js';
import { readProduct } from './products.js';
import { db } from './tenant.js';

/** The hand-written product read answers exactly what the client's read with the same relations answers. */
describe('readProduct', () => {
  let database: TestDatabase;
  let ctx: TestContext;
  let other: TestContext;
  beforeAll(async () => {
    database = await openTestDatabase();
    ctx = await storeContext(database);
    other = await storeContext(database);
  });
  afterAll(() => database?.close());

  const viaClient = (id: string) => db(ctx).product.findUnique({ where: { id }, include: PRODUCT_INCLUDE });

  it('equals the client read for every kind of column and relation', async () => {
    const plain = await makeProduct(ctx, { price: 1999, currency: 'EUR' });
    const rich = await makeRecurringProduct(ctx, {
      price: 9_007_199_254_740,
      currency: 'JPY',
      image_url: 'https://example.com/a.png',
      custom_fields: [
        { type: 'text', key: 'company', label: 'Company', optional: true, text: { max_length: 80, min_length: 2 } },
        { type: 'checkbox', key: 'terms', label: 'Terms', checkbox: { label: 'I agree' } },
      ],
      features: [
        { type: 'licenseKey', description: 'Key', license_key: { activation_limit: 3 } },
        { type: 'customerCredits', description: 'Credits', customer_credits: { amount: '123456789012345678', unit_label: 'tokens' } },
      ],
    });
    const meter = newId('meter');
    await db(ctx).meter.create({ data: { id: meter, name: 'Tokens', eventName: 'tokens.used', aggregation: 'sum', aggregationProperty: 'n', unitLabel: 'token' } });
    await db(ctx).usagePrice.create({
      data: { id: newId('usagePrice'), productId: rich.id, meterId: meter, unitPrice: new Prisma.Decimal('0.000123456789'), freeAllowance: 1_000_000_000_000n, cap: null, settlementMode: 'invoice' },
    });
    for (const id of [plain.id, rich.id]) expect(await readProduct(ctx, id)).toStrictEqual(await viaClient(id));
    const read = (await readProduct(ctx, rich.id))!;
    expect(read.usagePrices[0]!.unitPrice.toFixed()).toBe('0.000123456789');
    expect(read.features.map((f) => [f.type, f.creditsAmount])).toEqual([['licenseKey', null], ['customerCredits', 123456789012345678n]]);
  });

  it("answers null for an unknown id and for another store's product", async () => {
    const mine = await makeProduct(ctx);
    expect(await readProduct(ctx, 'prod_01JZZZZZZZZZZZZZZZZZZZZZZZ')).toBeNull();
    expect(await readProduct(other, mine.id)).toBeNull();
  });
});
