import { z } from 'zod';
import { decimalTextOf } from '../../lib/money.js';
import { pageQuery } from '../../lib/pagination.js';
import { currencyCode, httpUrl, minorUnits, resourceId } from '../../lib/schemas.js';

/**
 * Input schemas of the product operations, in the /v1 field names. The GraphQL mutations
 * translate their camelCase arguments to these names and go through the same schemas.
 */

export const BILLING_PERIODS = ['once', 'every-day', 'every-month', 'every-three-months', 'every-six-months', 'every-year', 'custom'] as const;
export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const TAX_CATEGORIES = ['saas', 'digital-goods-service', 'ebooks'] as const;
export const BILLING_TYPES = ['recurring', 'onetime'] as const;
export const TAX_MODES = ['inclusive', 'exclusive'] as const;
export const PRODUCT_STATUSES = ['active', 'archived'] as const;
export const CUSTOM_FIELD_TYPES = ['text', 'checkbox'] as const;
export const FEATURE_TYPES = ['customerCredits', 'licenseKey'] as const;
export const SETTLEMENT_MODES = ['prepaid', 'postpaid'] as const;
export const TARGET_ACCOUNTS = ['shared', 'per_unit'] as const;
export const TRIAL_USAGE_MODES = ['free', 'accrue'] as const;

/** Presets and the renewal cadence they stand for. */
export const PRESET_CADENCE: Record<string, { interval: (typeof RECURRING_INTERVALS)[number]; count: number }> = {
  'every-day': { interval: 'day', count: 1 },
  'every-month': { interval: 'month', count: 1 },
  'every-three-months': { interval: 'month', count: 3 },
  'every-six-months': { interval: 'month', count: 6 },
  'every-year': { interval: 'year', count: 1 },
};

/** Bounds of `recurring_interval_count` per unit for custom cadences. */
export const INTERVAL_COUNT_MAX: Record<(typeof RECURRING_INTERVALS)[number], number> = { day: 365, week: 52, month: 24, year: 3 };

const imageUrl = httpUrl.refine(
  (v) => /\.(png|jpe?g)$/i.test(new URL(v).pathname),
  'must point to a .png or .jpg image',
);

const customField = z.strictObject({
  type: z.enum(CUSTOM_FIELD_TYPES),
  key: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, - or _'),
  label: z.string().trim().min(1).max(200),
  optional: z.boolean().optional(),
  text: z
    .strictObject({
      max_length: z.number().int().min(1).max(1000).optional(),
      min_length: z.number().int().min(0).max(1000).optional(),
    })
    .refine((t) => t.min_length === undefined || t.max_length === undefined || t.min_length <= t.max_length, {
      message: 'min_length must not exceed max_length',
      path: ['min_length'],
    })
    .optional(),
  checkbox: z.strictObject({ label: z.string().max(500).optional() }).optional(),
});
export type CustomFieldInput = z.infer<typeof customField>;

export const customFields = z.array(customField).max(3, 'at most 3 custom fields');

/**
 * A price per meter unit, in minor units, that may be a fraction of one ($20 per million tokens
 * is 0.002): a JSON number on REST (taken at the decimal it was written as), a Decimal string on
 * GraphQL; always decimal text after parsing, never a float.
 */
const unitPrice = z
  .union([z.number(), z.string()])
  .transform((v) => (typeof v === 'number' ? decimalTextOf(v) : v.trim()))
  .refine((v) => /^\d{1,18}(\.\d{1,12})?$/.test(v), 'must be a non-negative decimal number with at most 12 decimals')
  .refine((v) => Number(v) <= 1_000_000, 'must be at most 1000000');

/** A count of meter units. */
const units = z
  .custom<number | bigint>((v) => typeof v === 'bigint' || (typeof v === 'number' && Number.isSafeInteger(v)), 'must be a whole number')
  .transform((v) => BigInt(v))
  .refine((v) => v >= 0n, 'must not be negative');

const usagePrice = z.strictObject({
  id: z.string().optional(),
  meter_id: resourceId,
  unit_price: unitPrice,
  free_allowance: units.optional(),
  cap: minorUnits.nullable().optional(),
  settlement_mode: z.enum(SETTLEMENT_MODES),
  target_account: z.enum(TARGET_ACCOUNTS).optional(),
  target_account_name: z.string().trim().min(1).max(100).nullable().optional(),
  trial_usage_mode: z.enum(TRIAL_USAGE_MODES).optional(),
});

const feature = z.discriminatedUnion('type', [
  z.strictObject({
    id: z.string().optional(),
    type: z.literal('customerCredits'),
    description: z.string().max(500).default(''),
    customer_credits: z.strictObject({
      amount: z.string().regex(/^[1-9][0-9]{0,17}$/, 'must be a positive whole number written as a string'),
      unit_label: z.string().max(50).nullable().optional(),
      bucket_name: z.string().trim().min(1, 'must not be blank').max(100).nullable().optional(),
    }),
  }),
  z.strictObject({
    id: z.string().optional(),
    type: z.literal('licenseKey'),
    description: z.string().max(500).default(''),
    license_key: z
      .strictObject({
        activation_limit: z.number().int().min(1).max(10_000).nullable().optional(),
        expires_in_days: z.number().int().min(1).max(36_500).nullable().optional(),
      })
      .default({}),
  }),
]);
export type FeatureInput = z.infer<typeof feature>;

/** Fields shared by create and update; all optional here, create makes some required. */
const productFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5000),
  image_url: imageUrl,
  image_urls: z.array(imageUrl).max(8, 'at most 8 images'),
  price: minorUnits.refine((p) => p === 0n || p >= 100n, 'must be 0 (free product) or at least 100 (one whole currency unit)'),
  currency: currencyCode,
  billing_type: z.enum(BILLING_TYPES),
  billing_period: z.enum(BILLING_PERIODS),
  recurring_interval: z.enum(RECURRING_INTERVALS),
  recurring_interval_count: z.number().int().min(1),
  tax_mode: z.enum(TAX_MODES),
  tax_category: z.enum(TAX_CATEGORIES),
  business_net_pricing: z.boolean(),
  pay_what_you_want: z.boolean(),
  suggested_price: minorUnits,
  trial_period_days: z.number().int().min(1).max(730),
  trial_price: minorUnits,
  default_success_url: httpUrl,
  custom_fields: customFields,
  custom_field: customFields,
  abandoned_cart_recovery_enabled: z.boolean(),
  usage_prices: z.array(usagePrice).max(10),
  features: z.array(feature).max(10),
};

export const createProductSchema = z.strictObject({
  ...productFields,
  description: productFields.description.default(''),
  image_url: productFields.image_url.optional(),
  image_urls: productFields.image_urls.optional(),
  billing_period: productFields.billing_period.optional(),
  recurring_interval: productFields.recurring_interval.optional(),
  recurring_interval_count: productFields.recurring_interval_count.optional(),
  tax_mode: productFields.tax_mode.default('inclusive'),
  tax_category: productFields.tax_category.default('saas'),
  business_net_pricing: productFields.business_net_pricing.default(false),
  pay_what_you_want: productFields.pay_what_you_want.default(false),
  suggested_price: productFields.suggested_price.optional(),
  trial_period_days: productFields.trial_period_days.optional(),
  trial_price: productFields.trial_price.optional(),
  default_success_url: productFields.default_success_url.optional(),
  custom_fields: productFields.custom_fields.optional(),
  custom_field: productFields.custom_field.optional(),
  abandoned_cart_recovery_enabled: productFields.abandoned_cart_recovery_enabled.default(false),
  usage_prices: productFields.usage_prices.optional(),
  features: productFields.features.optional(),
});
export type CreateProductInput = z.infer<typeof createProductSchema>;

/** PATCH: every field optional; null clears the optional settings that can be cleared. */
export const updateProductSchema = z.strictObject({
  id: resourceId,
  name: productFields.name.optional(),
  description: productFields.description.optional(),
  image_url: productFields.image_url.nullable().optional(),
  image_urls: productFields.image_urls.optional(),
  price: productFields.price.optional(),
  currency: productFields.currency.optional(),
  billing_type: productFields.billing_type.optional(),
  billing_period: productFields.billing_period.optional(),
  recurring_interval: productFields.recurring_interval.optional(),
  recurring_interval_count: productFields.recurring_interval_count.optional(),
  tax_mode: productFields.tax_mode.optional(),
  tax_category: productFields.tax_category.optional(),
  business_net_pricing: productFields.business_net_pricing.optional(),
  pay_what_you_want: productFields.pay_what_you_want.optional(),
  suggested_price: productFields.suggested_price.nullable().optional(),
  trial_period_days: productFields.trial_period_days.nullable().optional(),
  trial_price: productFields.trial_price.nullable().optional(),
  default_success_url: productFields.default_success_url.nullable().optional(),
  custom_fields: productFields.custom_fields.optional(),
  custom_field: productFields.custom_field.optional(),
  abandoned_cart_recovery_enabled: productFields.abandoned_cart_recovery_enabled.optional(),
  usage_prices: productFields.usage_prices.optional(),
  features: productFields.features.optional(),
});
export type UpdateProductInput = z.infer<typeof updateProductSchema>;

export const productFilterSchema = z.object({ status: z.enum(PRODUCT_STATUSES).optional() });
export type ProductFilter = z.infer<typeof productFilterSchema>;

export const searchProductsSchema = pageQuery(10).extend(productFilterSchema.shape);
export type SearchProductsInput = z.infer<typeof searchProductsSchema>;

/** GET and DELETE /v1/products/{id}: the id; other query parameters are ignored. */
export const productIdSchema = z.object({ id: resourceId });
