import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../context.js';
import { AppError } from '../../lib/errors.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { perform, storeContext } from '../../../test/support/context.js';
import { archiveProductOp, createProductOp, updateProductOp } from './products.operations.js';
import { findPurchasableProductOrThrow } from './products.service.js';
import { serializeProduct } from './products.serializer.js';

const createProduct = (ctx: RequestContext, raw: Record<string, unknown>) => perform(ctx, createProductOp, raw);
const updateProduct = (ctx: RequestContext, id: string, raw: Record<string, unknown>) => perform(ctx, updateProductOp, { ...raw, id });

const base = { name: 'Plan', price: 1000, currency: 'EUR', billing_type: 'onetime' };

async function fieldsOf(promise: Promise<unknown>): Promise<string[]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return (err as AppError).issues.map((i) => i.path.join('.'));
}

describe('products service rules', () => {
  let db: TestDatabase;
  let ctx: RequestContext;

  beforeAll(async () => {
    db = await openTestDatabase();
    ctx = await storeContext(db);
  });
  afterAll(() => db?.close());

  it('treats price 0 as a free product and forces one-time products to once with no recurrence', async () => {
    const p = await createProduct(ctx, { ...base, price: 0, billing_period: 'every-year', recurring_interval: 'year', recurring_interval_count: 1 });
    expect(p).toMatchObject({ price: 0n, billingPeriod: 'once', recurringInterval: null, recurringIntervalCount: null });
  });

  it.each([
    ['every-day', 'day', 1],
    ['every-month', 'month', 1],
    ['every-three-months', 'month', 3],
    ['every-six-months', 'month', 6],
    ['every-year', 'year', 1],
  ])('derives the cadence of preset %s', async (period, interval, count) => {
    const p = await createProduct(ctx, { ...base, billing_type: 'recurring', billing_period: period });
    expect(p).toMatchObject({ billingPeriod: period, recurringInterval: interval, recurringIntervalCount: count });
  });

  it('accepts an explicit cadence that matches the preset', async () => {
    const p = await createProduct(ctx, { ...base, billing_type: 'recurring', billing_period: 'every-month', recurring_interval: 'month', recurring_interval_count: 1 });
    expect(p.recurringInterval).toBe('month');
  });

  it('requires both cadence fields for custom, within the bounds of the unit', async () => {
    const recurring = { ...base, billing_type: 'recurring', billing_period: 'custom' };
    expect(await fieldsOf(createProduct(ctx, recurring))).toEqual(['recurring_interval', 'recurring_interval_count']);
    expect(await fieldsOf(createProduct(ctx, { ...recurring, recurring_interval: 'year', recurring_interval_count: 4 }))).toEqual(['recurring_interval_count']);
    const ok = await createProduct(ctx, { ...recurring, recurring_interval: 'day', recurring_interval_count: 365 });
    expect(ok).toMatchObject({ recurringInterval: 'day', recurringIntervalCount: 365 });
  });

  it('mirrors the first of image_urls in image_url and accepts png and jpg only', async () => {
    const p = await createProduct(ctx, { ...base, image_url: 'https://a.test/ignored.png', image_urls: ['https://a.test/1.JPG', 'https://a.test/2.png'] });
    const json = serializeProduct(p, ctx.baseUrl);
    expect(json.image_url).toBe('https://a.test/1.JPG');
    expect(json.image_urls).toEqual(['https://a.test/1.JPG', 'https://a.test/2.png']);
    const single = serializeProduct(await createProduct(ctx, { ...base, image_url: 'https://a.test/c.jpeg' }), ctx.baseUrl);
    expect(single.image_urls).toEqual(['https://a.test/c.jpeg']);
    expect(await fieldsOf(createProduct(ctx, { ...base, image_urls: ['https://a.test/x.webp'] }))).toEqual(['image_urls.0']);
    expect(await fieldsOf(createProduct(ctx, { ...base, image_url: 'ftp://a.test/x.png' }))).toEqual(['image_url']);
  });

  it('accepts custom_field as an alias of custom_fields and answers minimum_length', async () => {
    const p = await createProduct(ctx, { ...base, custom_field: [{ type: 'text', key: 'vat', label: 'VAT id', text: { min_length: 4, max_length: 20 } }] });
    expect(serializeProduct(p, ctx.baseUrl).custom_fields).toEqual([
      { type: 'text', key: 'vat', label: 'VAT id', optional: false, text: { max_length: 20, minimum_length: 4 } },
    ]);
    const both = { type: 'text', key: 'a', label: 'A' };
    expect(await fieldsOf(createProduct(ctx, { ...base, custom_fields: [both], custom_field: [both] }))).toEqual(['custom_field']);
    expect(await fieldsOf(createProduct(ctx, { ...base, custom_fields: [both, { ...both, key: 'b' }, { ...both, key: 'c' }, { ...both, key: 'd' }] }))).toEqual(['custom_fields']);
  });

  it('keeps trials, trial prices and metered prices to subscriptions, and pay-what-you-want to one-time products', async () => {
    const recurring = { ...base, billing_type: 'recurring', billing_period: 'every-month' };
    expect(await fieldsOf(createProduct(ctx, { ...base, trial_period_days: 7 }))).toEqual(['trial_period_days']);
    expect(await fieldsOf(createProduct(ctx, { ...recurring, trial_price: 500 }))).toEqual(['trial_price']);
    expect(await fieldsOf(createProduct(ctx, { ...recurring, trial_period_days: 7, trial_price: 1000 }))).toEqual(['trial_price']);
    expect(await fieldsOf(createProduct(ctx, { ...recurring, pay_what_you_want: true }))).toEqual(['pay_what_you_want']);
    expect(await fieldsOf(createProduct(ctx, { ...recurring, business_net_pricing: true }))).toEqual(['business_net_pricing']);
    const trial = await createProduct(ctx, { ...recurring, trial_period_days: 7, trial_price: 100 });
    expect(trial).toMatchObject({ trialPeriodDays: 7, trialPrice: 100n });
    const pwyw = await createProduct(ctx, { ...base, pay_what_you_want: true, suggested_price: 2500 });
    expect(pwyw).toMatchObject({ payWhatYouWant: true, suggestedPrice: 2500n, price: 1000n });
  });

  it('stores license key and credit features', async () => {
    const p = await createProduct(ctx, {
      ...base,
      features: [
        { type: 'licenseKey', description: 'Desktop app', license_key: { activation_limit: 3, expires_in_days: 365 } },
        { type: 'customerCredits', description: 'Starter credits', customer_credits: { amount: '9007199254740993', bucket_name: 'images' } },
      ],
    });
    const json = serializeProduct(p, ctx.baseUrl);
    expect(json.features[0]).toMatchObject({ type: 'licenseKey', license_key: { activation_limit: 3, expires_in_days: 365 } });
    // Beyond 2^53: carried as a string, exact.
    expect(json.features[1]).toMatchObject({ type: 'customerCredits', customer_credits: { amount: '9007199254740993', bucket_name: 'images' } });
  });

  it('stores metered prices exactly for meters of the same store and environment only', async () => {
    const meter = await db.prisma.meter.create({
      data: { id: 'mtr_tokens', storeId: ctx.storeId, mode: ctx.mode, name: 'Tokens', eventName: 'tokens', aggregation: 'sum', aggregationProperty: 'n' },
    });
    const other = await db.prisma.meter.create({
      data: { id: 'mtr_prod', storeId: ctx.storeId, mode: 'prod', name: 'Tokens', eventName: 'tokens', aggregation: 'sum', aggregationProperty: 'n' },
    });
    const recurring = { ...base, billing_type: 'recurring', billing_period: 'every-month' };
    const p = await createProduct(ctx, {
      ...recurring,
      usage_prices: [{ meter_id: meter.id, unit_price: 0.002, free_allowance: 1000, cap: 5000, settlement_mode: 'postpaid' }],
    });
    expect(serializeProduct(p, ctx.baseUrl).usage_prices).toEqual([
      expect.objectContaining({ meter_id: meter.id, unit_price: 0.002, free_allowance: 1000, cap: 5000, settlement_mode: 'postpaid', target_account: 'shared', trial_usage_mode: 'free' }),
    ]);
    expect(p.usagePrices[0]!.unitPrice.toString()).toBe('0.002');
    expect(await fieldsOf(createProduct(ctx, { ...recurring, usage_prices: [{ meter_id: other.id, unit_price: 1, settlement_mode: 'prepaid' }] }))).toEqual(['usage_prices.0.meter_id']);
  });

  it('keeps the ids of features sent back on update and replaces the rest', async () => {
    const p = await createProduct(ctx, {
      ...base,
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 1 } }],
    });
    const keptId = p.features[0]!.id;
    const updated = await updateProduct(ctx, p.id, {
      features: [
        { id: keptId, type: 'licenseKey', description: 'Key', license_key: { activation_limit: 5 } },
        { type: 'customerCredits', description: 'Credits', customer_credits: { amount: '100' } },
      ],
    });
    expect(updated.features.map((f) => [f.id === keptId, f.type, f.licenseActivationLimit])).toEqual([
      [true, 'licenseKey', 5],
      [false, 'customerCredits', null],
    ]);
    expect(await fieldsOf(updateProduct(ctx, p.id, { features: [{ id: 'feat_elsewhere', type: 'licenseKey' }] }))).toEqual(['features.0.id']);
  });

  it('re-applies the rules to the whole product on update', async () => {
    const p = await createProduct(ctx, { ...base, billing_type: 'recurring', billing_period: 'custom', recurring_interval: 'week', recurring_interval_count: 2 });
    const toPreset = await updateProduct(ctx, p.id, { billing_period: 'every-six-months' });
    expect(toPreset).toMatchObject({ recurringInterval: 'month', recurringIntervalCount: 6 });
    const toOnetime = await updateProduct(ctx, p.id, { billing_type: 'onetime' });
    expect(toOnetime).toMatchObject({ billingPeriod: 'once', recurringInterval: null, recurringIntervalCount: null });
    expect(await fieldsOf(updateProduct(ctx, p.id, { billing_type: 'recurring' }))).toEqual(['billing_period']);
    const back = await updateProduct(ctx, p.id, { billing_type: 'recurring', billing_period: 'custom', recurring_interval: 'day', recurring_interval_count: 10 });
    expect(back).toMatchObject({ recurringInterval: 'day', recurringIntervalCount: 10 });
    // A partial update of a custom product keeps the cadence it has.
    const renamed = await updateProduct(ctx, p.id, { name: 'Renamed', custom_fields: [{ type: 'checkbox', key: 'tos', label: 'Terms', checkbox: { label: '[Terms](https://x.test)' } }] });
    expect(renamed).toMatchObject({ name: 'Renamed', recurringInterval: 'day', recurringIntervalCount: 10 });
    expect(renamed.customFields.map((f) => f.key)).toEqual(['tos']);
  });

  it('keeps an archived product readable but no longer purchasable', async () => {
    const p = await createProduct(ctx, base);
    expect((await findPurchasableProductOrThrow(ctx, p.id)).id).toBe(p.id);
    const archived = await perform(ctx, archiveProductOp, { id: p.id });
    expect(archived.status).toBe('archived');
    await expect(findPurchasableProductOrThrow(ctx, p.id)).rejects.toMatchObject({ code: 'product_not_purchasable', issues: [{ path: ['product_id'] }] });
  });
});
