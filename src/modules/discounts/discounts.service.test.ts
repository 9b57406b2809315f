import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../context.js';
import { ManualClock } from '../../lib/clock.js';
import { inTransaction } from '../../db/tenant.js';
import { AppError, type ErrorCode } from '../../lib/errors.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { perform, storeContext } from '../../../test/support/context.js';
import { createProductOp } from '../products/products.operations.js';
import { createDiscountOp, deleteDiscountOp, retrieveDiscountOp, searchDiscountsOp } from './discounts.operations.js';
import { serializeAppliedDiscount, serializeDiscount } from './discounts.serializer.js';
import { discountAmountFor, findRedeemableDiscount, releaseRedemption, reserveRedemption } from './discounts.service.js';

const pct = { name: 'Launch', type: 'percentage', percentage: 20, duration: 'forever' };
const fixed = { name: 'Five off', type: 'fixed', amount: 500, currency: 'EUR', duration: 'once' };

async function failureOf(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}
const fieldsOf = async (promise: Promise<unknown>) => (await failureOf(promise)).issues.map((i) => i.path.join('.'));

// The operations as the transports run them: raw input validated by the operation's schema, writes in one transaction.
const createDiscount = (c: RequestContext, raw: unknown) => perform(c, createDiscountOp, raw);
const retrieveDiscount = (c: RequestContext, raw: unknown) => perform(c, retrieveDiscountOp, raw);
const searchDiscounts = (c: RequestContext, raw: unknown) => perform(c, searchDiscountsOp, raw);
const deleteDiscount = (c: RequestContext, raw: unknown) => perform(c, deleteDiscountOp, raw);
const createProduct = (c: RequestContext, raw: unknown) => perform(c, createProductOp, raw);

describe('discounts service', () => {
  let db: TestDatabase;
  let ctx: RequestContext & { clock: ManualClock };
  let other: RequestContext;
  let prodCtx: RequestContext;
  let eur: { id: string; currency: string; billingType: string };
  let usd: { id: string; currency: string; billingType: string };
  let foreignProductId: string;
  const count = () => db.prisma.discount.count();

  beforeAll(async () => {
    db = await openTestDatabase();
    ctx = await storeContext(db);
    other = await storeContext(db);
    prodCtx = { ...ctx, mode: 'prod' };
    eur = await createProduct(ctx, { name: 'Book', price: 1000, currency: 'EUR', billing_type: 'onetime' });
    usd = await createProduct(ctx, { name: 'Plan', price: 2900, currency: 'USD', billing_type: 'recurring', billing_period: 'every-month' });
    foreignProductId = (await createProduct(other, { name: 'Theirs', price: 1000, currency: 'EUR', billing_type: 'onetime' })).id;
  });
  afterAll(() => db?.close());

  describe('create', () => {
    it('generates an unambiguous 8-character code when none is sent', async () => {
      const d = await createDiscount(ctx, pct);
      expect(d.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
      expect(d).toMatchObject({ type: 'percentage', percentage: 20, amount: null, currency: null, duration: 'forever', durationInMonths: null, status: 'active', timesRedeemed: 0 });
      expect(d.products).toEqual([]);
    });

    it('stores codes uppercased and refuses a taken code in any case, writing nothing', async () => {
      const d = await createDiscount(ctx, { ...fixed, code: 'summer-26', applies_to_products: [eur.id, eur.id] });
      expect(d).toMatchObject({ code: 'SUMMER-26', amount: 500n, percentage: null, currency: 'EUR' });
      expect(d.products).toEqual([{ productId: eur.id }]);
      // The product link belongs to the discount's store and environment.
      expect(await db.prisma.discountProduct.findMany({ where: { discountId: d.id } })).toEqual([
        { discountId: d.id, productId: eur.id, storeId: ctx.storeId, mode: 'test' },
      ]);
      const before = await count();
      const err = await failureOf(createDiscount(ctx, { ...pct, code: 'Summer-26' }));
      expect(err.code).toBe('already_exists');
      expect(err.issues[0]).toMatchObject({ path: ['code'] });
      expect(err.messages()[0]).toContain('already exists');
      expect(await count()).toBe(before);
      // Codes are per store and environment.
      await expect(createDiscount(other, { ...pct, code: 'SUMMER-26' })).resolves.toMatchObject({ code: 'SUMMER-26' });
      await expect(createDiscount(prodCtx, { ...pct, code: 'summer-26' })).resolves.toMatchObject({ mode: 'prod' });
    });

    it.each([
      ['percentage missing', { ...pct, percentage: undefined }, ['percentage']],
      ['percentage 0', { ...pct, percentage: 0 }, ['percentage']],
      ['percentage 101', { ...pct, percentage: 101 }, ['percentage']],
      ['fractional percentage', { ...pct, percentage: 12.5 }, ['percentage']],
      ['amount on a percentage discount', { ...pct, amount: 100 }, ['amount']],
      ['fixed without amount and currency', { name: 'x', type: 'fixed', duration: 'once' }, ['amount', 'currency']],
      ['fractional fixed amount', { ...fixed, amount: 4.5 }, ['amount']],
      ['fixed amount 0', { ...fixed, amount: 0 }, ['amount']],
      ['lowercase currency', { ...fixed, currency: 'eur' }, ['currency']],
      ['percentage on a fixed discount', { ...fixed, percentage: 10 }, ['percentage']],
      ['repeating without months', { ...pct, duration: 'repeating' }, ['duration_in_months']],
      ['repeating with 0 months', { ...pct, duration: 'repeating', duration_in_months: 0 }, ['duration_in_months']],
      ['months on forever', { ...pct, duration_in_months: 3 }, ['duration_in_months']],
      ['months on once', { ...fixed, duration_in_months: 3 }, ['duration_in_months']],
      ['max_redemptions 0', { ...pct, max_redemptions: 0 }, ['max_redemptions']],
      ['unknown duration', { ...pct, duration: 'weekly' }, ['duration']],
      ['unknown type', { ...pct, type: 'bogo' }, ['type']],
      ['blank name', { ...pct, name: ' ' }, ['name']],
      ['code with spaces', { ...pct, code: 'TWO WORDS' }, ['code']],
      ['expiry without offset', { ...pct, expiry_date: '2027-01-01T00:00:00' }, ['expiry_date']],
      ['unknown field', { ...pct, coupon: 'x' }, ['']],
    ])('rejects %s naming the field and writes nothing', async (_label, input, fields) => {
      const before = await count();
      expect(await fieldsOf(createDiscount(ctx, input))).toEqual(fields);
      expect(await count()).toBe(before);
    });

    it('rejects an expiry date that is not in the future (by the context clock)', async () => {
      const before = await count();
      const now = ctx.clock.now().toISOString();
      expect(await fieldsOf(createDiscount(ctx, { ...pct, expiry_date: now }))).toEqual(['expiry_date']);
      expect(await count()).toBe(before);
    });

    it('names the index of each product id that is unknown or belongs to another store', async () => {
      const before = await count();
      const err = await failureOf(createDiscount(ctx, { ...pct, applies_to_products: [eur.id, 'prod_nope', foreignProductId] }));
      expect(err.issues.map((i) => i.path)).toEqual([
        ['applies_to_products', 1],
        ['applies_to_products', 2],
      ]);
      expect(err.messages()[0]).toContain('prod_nope');
      // Test-mode products do not exist in prod mode either.
      expect(await fieldsOf(createDiscount(prodCtx, { ...pct, applies_to_products: [eur.id] }))).toEqual(['applies_to_products.0']);
      expect(await count()).toBe(before);
    });
  });

  describe('read, search, delete', () => {
    it('retrieves by id or by code in any case; other stores and environments get 404', async () => {
      const d = await createDiscount(ctx, { ...pct, code: 'READ-ME' });
      await expect(retrieveDiscount(ctx, { discount_id: d.id })).resolves.toMatchObject({ id: d.id });
      await expect(retrieveDiscount(ctx, { discount_code: 'read-me' })).resolves.toMatchObject({ id: d.id });
      expect((await failureOf(retrieveDiscount(other, { discount_id: d.id }))).code).toBe('not_found');
      expect((await failureOf(retrieveDiscount(prodCtx, { discount_code: 'READ-ME' }))).code).toBe('not_found');
      expect(await fieldsOf(retrieveDiscount(ctx, {}))).toEqual(['discount_id']);
    });

    it('derives expired from the clock and filters search by status, type, product and creation time', async () => {
      const c = await storeContext(db);
      const p1 = await createProduct(c, { name: 'A', price: 1000, currency: 'EUR', billing_type: 'onetime' });
      const p2 = await createProduct(c, { name: 'B', price: 1000, currency: 'EUR', billing_type: 'onetime' });
      const all = await createDiscount(c, pct);
      const only1 = await createDiscount(c, { ...fixed, applies_to_products: [p1.id] });
      const only2 = await createDiscount(c, { ...pct, applies_to_products: [p2.id] });
      const soon = new Date(c.clock.now().getTime() + 60_000);
      const expiring = await createDiscount(c, { ...pct, expiry_date: soon.toISOString() });
      const gone = await createDiscount(c, pct);
      await deleteDiscount(c, { id: gone.id });

      const ids = async (q: Record<string, unknown>) => (await searchDiscounts(c, q)).items.map((d) => d.id);
      expect(await ids({})).toEqual([gone.id, expiring.id, only2.id, only1.id, all.id]);
      expect(await ids({ status: 'active' })).toEqual([expiring.id, only2.id, only1.id, all.id]);
      expect(await ids({ status: 'deleted' })).toEqual([gone.id]);
      expect(await ids({ type: 'fixed' })).toEqual([only1.id]);
      expect(await ids({ product_id: p1.id })).toEqual([gone.id, expiring.id, only1.id, all.id]);
      expect(serializeDiscount(expiring, c.clock.now()).status).toBe('active');

      c.clock.advance(60_000);
      expect(serializeDiscount(expiring, c.clock.now()).status).toBe('expired');
      expect(await ids({ status: 'expired' })).toEqual([expiring.id]);
      expect(await ids({ status: 'active' })).toEqual([only2.id, only1.id, all.id]);

      // Pin creation times so the range bounds are exact: day 1 .. day 5 of 2025-12.
      const inOrder = [all, only1, only2, expiring, gone];
      for (const [i, d] of inOrder.entries()) {
        await db.prisma.discount.update({ where: { id: d.id }, data: { createdAt: new Date(Date.UTC(2025, 11, i + 1)) } });
      }
      expect(await ids({ created_after: '2025-12-02T00:00:00Z' })).toEqual([gone.id, expiring.id, only2.id]);
      expect(await ids({ created_before: '2025-12-02' })).toEqual([all.id]);
      expect(await ids({ created_after: '2025-12-01', created_before: '2025-12-04T00:00:00.000Z' })).toEqual([only2.id, only1.id]);
      expect(await fieldsOf(searchDiscounts(c, { created_after: 'yesterday' }))).toEqual(['created_after']);
      expect(await fieldsOf(searchDiscounts(c, { status: 'paused' }))).toEqual(['status']);

      const page = await searchDiscounts(c, { page_size: '2', page_number: '2' });
      expect(page.items.map((d) => d.id)).toEqual([only2.id, only1.id]);
      expect(page.pagination).toEqual({ total_records: 5, total_pages: 3, current_page: 2, next_page: 3, prev_page: 1 });
    });

    it('soft-deletes: stays readable as deleted, keeps its code taken, and foreign ids get 404', async () => {
      const d = await createDiscount(ctx, { ...pct, code: 'BYE' });
      expect((await failureOf(deleteDiscount(other, { id: d.id }))).code).toBe('not_found');
      const deleted = await deleteDiscount(ctx, { id: d.id });
      expect(serializeDiscount(deleted, ctx.clock.now()).status).toBe('deleted');
      await expect(deleteDiscount(ctx, { id: d.id })).resolves.toMatchObject({ status: 'deleted' });
      await expect(retrieveDiscount(ctx, { discount_code: 'bye' })).resolves.toMatchObject({ status: 'deleted' });
      expect((await failureOf(createDiscount(ctx, { ...pct, code: 'bye' }))).code).toBe('already_exists');
    });
  });

  describe('redemption', () => {
    it('finds a redeemable code in any case and rejects every unusable one on discount_code', async () => {
      const rejection = async (code: string, expected: ErrorCode, product = eur) => {
        const err = await failureOf(findRedeemableDiscount(ctx, code, product));
        expect(err.code).toBe(expected);
        expect(err.kind).toBe('invalid_request');
        expect(err.issues.map((i) => i.path)).toEqual([['discount_code']]);
        return err.message;
      };
      await createDiscount(ctx, { ...pct, code: 'OK-ALL' });
      await expect(findRedeemableDiscount(ctx, ' ok-all ', eur)).resolves.toMatchObject({ code: 'OK-ALL' });
      expect(await rejection('NO-SUCH-CODE', 'discount_invalid')).toMatch(/not valid/);
      await createDiscount(other, { ...pct, code: 'OTHER-STORE' });
      expect(await rejection('OTHER-STORE', 'discount_invalid')).toMatch(/not valid/);

      const del = await createDiscount(ctx, { ...pct, code: 'DELETED' });
      await deleteDiscount(ctx, { id: del.id });
      expect(await rejection('deleted', 'discount_invalid')).toMatch(/no longer available/);

      await createDiscount(ctx, { ...pct, code: 'SHORT-LIVED', expiry_date: new Date(ctx.clock.now().getTime() + 1000).toISOString() });
      await expect(findRedeemableDiscount(ctx, 'SHORT-LIVED', eur)).resolves.toBeTruthy();
      ctx.clock.advance(1000);
      expect(await rejection('SHORT-LIVED', 'discount_expired')).toMatch(/expired/);

      await createDiscount(ctx, { ...pct, code: 'EUR-BOOK-ONLY', applies_to_products: [eur.id] });
      await expect(findRedeemableDiscount(ctx, 'EUR-BOOK-ONLY', eur)).resolves.toBeTruthy();
      expect(await rejection('EUR-BOOK-ONLY', 'discount_not_applicable', usd)).toMatch(/does not apply/);

      await createDiscount(ctx, { ...fixed, code: 'FIVE-EUR' });
      expect(await rejection('FIVE-EUR', 'discount_not_applicable', usd)).toMatch(/EUR.*USD/);

      const once = await createDiscount(ctx, { ...pct, code: 'ONE-USE', max_redemptions: 1 });
      await expect(findRedeemableDiscount(ctx, 'ONE-USE', eur)).resolves.toBeTruthy();
      expect(await inTransaction(ctx, (tx) => reserveRedemption(tx, once.id))).toBe(true);
      expect(await rejection('ONE-USE', 'discount_exhausted')).toMatch(/maximum/);
    });

    it('computes amounts in integer minor units, rounding percentages half up and capping fixed amounts', async () => {
      const percent = (percentage: number) => ({ id: 'disc_pct', type: 'percentage', percentage, amount: null });
      const flat = (amount: bigint) => ({ id: 'disc_flat', type: 'fixed', percentage: null, amount });
      expect(discountAmountFor(percent(20), 1000n)).toBe(200n);
      expect(discountAmountFor(percent(15), 999n)).toBe(150n); // 149.85
      expect(discountAmountFor(percent(10), 5n)).toBe(1n); // 0.5 rounds up
      expect(discountAmountFor(percent(10), 4n)).toBe(0n); // 0.4 rounds down
      expect(discountAmountFor(percent(33), 2999n)).toBe(990n); // 989.67
      expect(discountAmountFor(percent(100), 2999n)).toBe(2999n);
      expect(discountAmountFor(percent(50), 0n)).toBe(0n);
      expect(discountAmountFor(flat(500n), 1000n)).toBe(500n);
      expect(discountAmountFor(flat(500n), 300n)).toBe(300n);
      // Beyond what a double holds exactly: bigint all the way.
      expect(discountAmountFor(percent(50), 2n ** 62n + 1n)).toBe(2n ** 61n + 1n);
    });

    it('takes a redemption only while active, unexpired and under the limit; releases never go below 0', async () => {
      const now = ctx.clock.now();
      // The redemption is taken as of the context's clock.
      const reserve = (id: string, at = now) => inTransaction({ ...ctx, clock: new ManualClock(at) }, (tx) => reserveRedemption(tx, id));
      const times = async (id: string) => (await db.prisma.discount.findUniqueOrThrow({ where: { id } })).timesRedeemed;

      const two = await createDiscount(ctx, { ...pct, max_redemptions: 2 });
      expect([await reserve(two.id), await reserve(two.id), await reserve(two.id)]).toEqual([true, true, false]);
      expect(await times(two.id)).toBe(2);
      await inTransaction(ctx, (tx) => releaseRedemption(tx, two.id));
      expect(await times(two.id)).toBe(1);
      expect(await reserve(two.id)).toBe(true);

      const unlimited = await createDiscount(ctx, pct);
      await inTransaction(ctx, (tx) => releaseRedemption(tx, unlimited.id));
      expect(await times(unlimited.id)).toBe(0);
      for (let i = 0; i < 3; i++) expect(await reserve(unlimited.id)).toBe(true);
      expect(await times(unlimited.id)).toBe(3);

      const expiring = await createDiscount(ctx, { ...pct, expiry_date: new Date(now.getTime() + 1000).toISOString() });
      expect(await reserve(expiring.id, new Date(now.getTime() + 1000))).toBe(false);
      expect(await reserve(expiring.id, new Date(now.getTime() + 999))).toBe(true);

      const deleted = await createDiscount(ctx, pct);
      await deleteDiscount(ctx, { id: deleted.id });
      expect(await reserve(deleted.id)).toBe(false);
      expect(await times(deleted.id)).toBe(0);

      // A rolled-back transaction gives its redemption back with it.
      const rolledBack = await createDiscount(ctx, { ...pct, max_redemptions: 1 });
      await expect(
        inTransaction({ ...ctx, clock: new ManualClock(now) }, async (tx) => {
          expect(await reserveRedemption(tx, rolledBack.id)).toBe(true);
          throw new Error('payment declined');
        }),
      ).rejects.toThrow('payment declined');
      expect(await times(rolledBack.id)).toBe(0);
    });

    it('never passes max_redemptions under concurrent reservations', async () => {
      const d = await createDiscount(ctx, { ...pct, max_redemptions: 1 });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => inTransaction(ctx, (tx) => reserveRedemption(tx, d.id))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await db.prisma.discount.findUniqueOrThrow({ where: { id: d.id } })).timesRedeemed).toBe(1);

      const three = await createDiscount(ctx, { ...pct, max_redemptions: 3 });
      const more = await Promise.all(
        Array.from({ length: 10 }, () => inTransaction(ctx, (tx) => reserveRedemption(tx, three.id))),
      );
      expect(more.filter(Boolean)).toHaveLength(3);
      expect((await db.prisma.discount.findUniqueOrThrow({ where: { id: three.id } })).timesRedeemed).toBe(3);
    });
  });

  describe('serializers', () => {
    it('renders the embedded discount in camelCase and the entity in snake_case, omitting absent fields', async () => {
      const rep = await createDiscount(ctx, { ...pct, code: 'REPEAT', duration: 'repeating', duration_in_months: 3, max_redemptions: 5 });
      expect(serializeAppliedDiscount(rep)).toEqual({
        id: rep.id,
        discountCode: 'REPEAT',
        name: 'Launch',
        type: 'percentage',
        amount: 20,
        duration: 'repeating',
        durationInMonths: 3,
      });
      const f = await createDiscount(ctx, { ...fixed, code: 'FLAT' });
      expect(serializeAppliedDiscount(f)).not.toHaveProperty('durationInMonths');
      const json = serializeDiscount(f, ctx.clock.now());
      expect(json).toMatchObject({ object: 'discount', code: 'FLAT', type: 'fixed', amount: 500, currency: 'EUR', redeem_count: 0, applies_to_products: [] });
      for (const key of ['percentage', 'expiry_date', 'max_redemptions', 'duration_in_months']) expect(json).not.toHaveProperty(key);
      expect(serializeDiscount(rep, ctx.clock.now())).toMatchObject({ percentage: 20, max_redemptions: 5, duration_in_months: 3 });
    });
  });
});
