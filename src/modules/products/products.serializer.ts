import { toWireNumber } from '../../lib/money.js';
import type { ProductWithRelations } from './products.service.js';

/** The /v1 JSON of a product; webhook payloads and GraphQL's `productUrl` reuse it. */
export function productUrl(baseUrl: string, productId: string): string {
  return `${baseUrl}/buy/${productId}`;
}

export function serializeProduct(p: ProductWithRelations, baseUrl: string) {
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
      type: f.type,
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
      settlement_mode: u.settlementMode,
      target_account: u.targetAccount,
      target_account_name: u.targetAccountName,
      trial_usage_mode: u.trialUsageMode,
    })),
    price: toWireNumber(p.price),
    currency: p.currency,
    billing_type: p.billingType,
    billing_period: p.billingPeriod,
    recurring_interval: p.recurringInterval,
    recurring_interval_count: p.recurringIntervalCount,
    trial_period_days: p.trialPeriodDays,
    trial_price: p.trialPrice === null ? null : toWireNumber(p.trialPrice),
    status: p.status,
    tax_mode: p.taxMode,
    tax_category: p.taxCategory,
    business_net_pricing: p.businessNetPricing,
    pay_what_you_want: p.payWhatYouWant,
    suggested_price: p.suggestedPrice === null ? null : toWireNumber(p.suggestedPrice),
    abandoned_cart_recovery_enabled: p.abandonedCartRecoveryEnabled,
    product_url: productUrl(baseUrl, p.id),
    default_success_url: p.defaultSuccessUrl,
    custom_fields: p.customFields.map((f) => ({
      type: f.type,
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
