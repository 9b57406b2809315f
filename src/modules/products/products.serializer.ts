import { z } from 'zod';
import { toWireNumber } from '../../lib/money.js';
import { isoTimestamp, modeField, wireAmount } from '../../lib/response-schemas.js';
import {
  BILLING_PERIODS,
  BILLING_TYPES,
  CUSTOM_FIELD_TYPES,
  FEATURE_TYPES,
  PRODUCT_STATUSES,
  RECURRING_INTERVALS,
  SETTLEMENT_MODES,
  TARGET_ACCOUNTS,
  TAX_CATEGORIES,
  TAX_MODES,
  TRIAL_USAGE_MODES,
} from './products.schemas.js';
import type { ProductWithRelations } from './products.service.js';

const productFeature = z.object({
  id: z.string(),
  type: z.enum(FEATURE_TYPES),
  description: z.string(),
  // Present on customerCredits features; the amount is a whole number written as a string.
  customer_credits: z.object({ amount: z.string(), unit_label: z.string().nullable(), bucket_name: z.string().nullable() }).optional(),
  // Present on licenseKey features.
  license_key: z.object({ activation_limit: z.number().int().nullable(), expires_in_days: z.number().int().nullable() }).optional(),
});

const productUsagePrice = z.object({
  id: z.string(),
  meter_id: z.string(),
  unit_price: z.number().meta({ description: 'Minor units per meter unit; may be a fraction of one' }),
  free_allowance: z.number().int(),
  cap: wireAmount.nullable(),
  settlement_mode: z.enum(SETTLEMENT_MODES),
  target_account: z.enum(TARGET_ACCOUNTS),
  target_account_name: z.string().nullable(),
  trial_usage_mode: z.enum(TRIAL_USAGE_MODES),
});

const productCustomField = z.object({
  type: z.enum(CUSTOM_FIELD_TYPES),
  key: z.string(),
  label: z.string(),
  optional: z.boolean(),
  text: z.object({ max_length: z.number().int().nullable(), minimum_length: z.number().int().nullable() }).optional(),
  checkbox: z.object({ label: z.string().nullable() }).optional(),
});

/** The /v1 ProductEntity. */
export const productEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('product'),
    name: z.string(),
    description: z.string(),
    // The first of `image_urls`, when there is one.
    image_url: z.string().optional(),
    image_urls: z.array(z.string()),
    features: z.array(productFeature),
    usage_prices: z.array(productUsagePrice),
    price: wireAmount,
    currency: z.string(),
    billing_type: z.enum(BILLING_TYPES),
    billing_period: z.enum(BILLING_PERIODS),
    recurring_interval: z.enum(RECURRING_INTERVALS).nullable(),
    recurring_interval_count: z.number().int().nullable(),
    trial_period_days: z.number().int().nullable(),
    trial_price: wireAmount.nullable(),
    status: z.enum(PRODUCT_STATUSES),
    tax_mode: z.enum(TAX_MODES),
    tax_category: z.enum(TAX_CATEGORIES),
    business_net_pricing: z.boolean(),
    pay_what_you_want: z.boolean(),
    suggested_price: wireAmount.nullable(),
    abandoned_cart_recovery_enabled: z.boolean(),
    product_url: z.string(),
    default_success_url: z.string().nullable(),
    custom_fields: z.array(productCustomField),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'ProductEntity' });
export type ProductEntity = z.infer<typeof productEntity>;

export function productUrl(baseUrl: string, productId: string): string {
  return `${baseUrl}/buy/${productId}`;
}

/** The /v1 JSON of a product; webhook payloads and GraphQL's `productUrl` reuse it. */
export function serializeProduct(p: ProductWithRelations, baseUrl: string): ProductEntity {
  return {
    id: p.id,
    mode: p.mode,
    object: 'product',
    name: p.name,
    description: p.description,
    ...(p.imageUrls.length ? { image_url: p.imageUrls[0] } : {}),
    image_urls: p.imageUrls,
    features: p.features.map((f) => ({
      id: f.id,
      type: f.type as ProductEntity['features'][number]['type'],
      description: f.description,
      ...(f.type === 'customerCredits'
        ? {
            customer_credits: {
              amount: String(f.creditsAmount ?? 0n),
              unit_label: f.creditsUnitLabel,
              bucket_name: f.creditsBucketName,
            },
          }
        : {}),
      ...(f.type === 'licenseKey'
        ? { license_key: { activation_limit: f.licenseActivationLimit, expires_in_days: f.licenseExpiresInDays } }
        : {}),
    })),
    usage_prices: p.usagePrices.map((u) => ({
      id: u.id,
      meter_id: u.meterId,
      // The client's model is a number; the stored decimal is exact, this is its nearest double.
      unit_price: Number(u.unitPrice),
      free_allowance: toWireNumber(u.freeAllowance),
      cap: u.cap === null ? null : toWireNumber(u.cap),
      settlement_mode: u.settlementMode as ProductEntity['usage_prices'][number]['settlement_mode'],
      target_account: u.targetAccount as ProductEntity['usage_prices'][number]['target_account'],
      target_account_name: u.targetAccountName,
      trial_usage_mode: u.trialUsageMode as ProductEntity['usage_prices'][number]['trial_usage_mode'],
    })),
    price: toWireNumber(p.price),
    currency: p.currency,
    billing_type: p.billingType,
    billing_period: p.billingPeriod as ProductEntity['billing_period'],
    recurring_interval: p.recurringInterval as ProductEntity['recurring_interval'],
    recurring_interval_count: p.recurringIntervalCount,
    trial_period_days: p.trialPeriodDays,
    trial_price: p.trialPrice === null ? null : toWireNumber(p.trialPrice),
    status: p.status,
    tax_mode: p.taxMode,
    tax_category: p.taxCategory as ProductEntity['tax_category'],
    business_net_pricing: p.businessNetPricing,
    pay_what_you_want: p.payWhatYouWant,
    suggested_price: p.suggestedPrice === null ? null : toWireNumber(p.suggestedPrice),
    abandoned_cart_recovery_enabled: p.abandonedCartRecoveryEnabled,
    product_url: productUrl(baseUrl, p.id),
    default_success_url: p.defaultSuccessUrl,
    custom_fields: p.customFields.map((f) => ({
      type: f.type as ProductEntity['custom_fields'][number]['type'],
      key: f.key,
      label: f.label,
      optional: f.optional,
      ...(f.type === 'text' ? { text: { max_length: f.textMaxLength, minimum_length: f.textMinLength } } : {}),
      ...(f.type === 'checkbox' ? { checkbox: { label: f.checkboxLabel } } : {}),
    })),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}
