import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { afterCommit, db, inTransaction, lockRow, notifyOnCommit } from '../../db/tenant.js';
import { AppError, IssueList, notFound, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { listing } from '../../db/listing.js';
import { PRODUCT_CHANGES } from '../../caches.js';
import { readProduct } from '../../db/products.js';
import {
  INTERVAL_COUNT_MAX,
  PRESET_CADENCE,
  type CreateProductInput,
  type CustomFieldInput,
  type FeatureInput,
  type ProductFilter,
  type SearchProductsInput,
  type UpdateProductInput,
} from './products.schemas.js';

/** Relations the /v1 product shape embeds. */
export const PRODUCT_INCLUDE = {
  customFields: { orderBy: { position: 'asc' } },
  features: { orderBy: { position: 'asc' } },
  usagePrices: { orderBy: { id: 'asc' } },
} satisfies P.ProductInclude;

export type ProductWithRelations = P.ProductGetPayload<{ include: typeof PRODUCT_INCLUDE }>;

type ProductSelection = { include?: P.ProductInclude; select?: P.ProductSelect };

/** A product's settings after the cross-field rules, ready to store. */
type ProductSettings = Omit<P.ProductUncheckedCreateInput, 'id' | 'storeId' | 'mode' | 'status' | 'createdAt' | 'updatedAt'>;

/** The input after defaults, with create and (merged) update in one shape. */
type ProductDraft = Omit<CreateProductInput, 'custom_field'> & { custom_fields?: CustomFieldInput[] };

/**
 * The cross-field rules of a product, applied to the complete desired state so that create
 * and update cannot drift apart. One-time products have no recurrence; presets imply their
 * cadence; `custom` needs both cadence fields; trials and metered prices are for
 * subscriptions; pay-what-you-want and business net pricing are for one-time products.
 */
function settle(d: ProductDraft, problems: IssueList): ProductSettings {
  let billingPeriod: string = d.billing_period ?? 'once';
  let recurringInterval: string | null = null;
  let recurringIntervalCount: number | null = null;

  if (d.billing_type === 'onetime') {
    billingPeriod = 'once';
    if (d.trial_period_days != null) problems.add('trial_period_days', 'trials are only supported for recurring products');
    if (d.usage_prices?.length) problems.add('usage_prices', 'usage prices are only supported for recurring products');
  } else if (!d.billing_period || d.billing_period === 'once') {
    problems.add('billing_period', 'is required for recurring products: every-day, every-month, every-three-months, every-six-months, every-year or custom');
  } else if (d.billing_period === 'custom') {
    if (!d.recurring_interval) problems.add('recurring_interval', 'is required when billing_period is custom: day, week, month or year');
    if (d.recurring_interval_count == null) problems.add('recurring_interval_count', 'is required when billing_period is custom');
    if (d.recurring_interval && d.recurring_interval_count != null) {
      const max = INTERVAL_COUNT_MAX[d.recurring_interval];
      if (d.recurring_interval_count > max) problems.add('recurring_interval_count', `must be between 1 and ${max} for interval ${d.recurring_interval}`);
    }
    recurringInterval = d.recurring_interval ?? null;
    recurringIntervalCount = d.recurring_interval_count ?? null;
  } else {
    const preset = PRESET_CADENCE[d.billing_period]!;
    if (d.recurring_interval && d.recurring_interval !== preset.interval) {
      problems.add('recurring_interval', `must be omitted for billing_period ${d.billing_period} (it means ${preset.count} ${preset.interval})`);
    }
    if (d.recurring_interval_count != null && d.recurring_interval_count !== preset.count) {
      problems.add('recurring_interval_count', `must be omitted for billing_period ${d.billing_period} (it means ${preset.count} ${preset.interval})`);
    }
    recurringInterval = preset.interval;
    recurringIntervalCount = preset.count;
  }

  if (d.pay_what_you_want && d.billing_type !== 'onetime') problems.add('pay_what_you_want', 'is only supported for one-time products');
  const suggestedPrice = d.pay_what_you_want ? (d.suggested_price ?? null) : null;
  if (suggestedPrice !== null && suggestedPrice < d.price) problems.add('suggested_price', 'must be at least the price (the minimum a buyer pays)');

  if (d.business_net_pricing && (d.billing_type !== 'onetime' || d.tax_mode !== 'inclusive')) {
    problems.add('business_net_pricing', 'is only supported for tax-inclusive one-time products');
  }

  const trialPrice = d.trial_price ? d.trial_price : null;
  if (trialPrice !== null) {
    if (d.trial_period_days == null) problems.add('trial_price', 'requires trial_period_days');
    else if (trialPrice < 100n || trialPrice >= d.price) problems.add('trial_price', 'must be at least 100 and lower than the price');
  }

  const imageUrls = d.image_urls ?? (d.image_url ? [d.image_url] : []);

  return {
    name: d.name,
    description: d.description,
    price: d.price,
    currency: d.currency,
    billingType: d.billing_type,
    billingPeriod,
    recurringInterval,
    recurringIntervalCount,
    taxMode: d.tax_mode,
    taxCategory: d.tax_category,
    businessNetPricing: d.business_net_pricing,
    payWhatYouWant: d.pay_what_you_want,
    suggestedPrice,
    trialPeriodDays: d.billing_type === 'recurring' ? (d.trial_period_days ?? null) : null,
    trialPrice,
    imageUrls,
    defaultSuccessUrl: d.default_success_url ?? null,
    abandonedCartRecoveryEnabled: d.abandoned_cart_recovery_enabled,
  };
}

/** `custom_fields` and its deprecated twin `custom_field` mean the same; one of them may be sent. */
export function pickCustomFields(input: { custom_fields?: CustomFieldInput[]; custom_field?: CustomFieldInput[] }, problems: IssueList) {
  if (input.custom_fields && input.custom_field) {
    problems.add('custom_field', 'send either custom_fields or its deprecated alias custom_field, not both');
  }
  const fields = input.custom_fields ?? input.custom_field;
  const name = input.custom_fields ? 'custom_fields' : 'custom_field';
  fields?.forEach((f, i) => {
    if (fields.findIndex((o) => o.key === f.key) !== i) problems.add([name, i, 'key'], `duplicate key "${f.key}"`);
    if (f.type !== 'text' && f.text) problems.add([name, i, 'text'], 'is only allowed for text fields');
    if (f.type !== 'checkbox' && f.checkbox) problems.add([name, i, 'checkbox'], 'is only allowed for checkbox fields');
  });
  return fields;
}

function customFieldRows(fields: CustomFieldInput[]) {
  return fields.map((f, position) => ({
    id: newId('customField'),
    position,
    type: f.type,
    key: f.key,
    label: f.label,
    optional: f.optional ?? false,
    textMaxLength: f.type === 'text' ? (f.text?.max_length ?? null) : null,
    textMinLength: f.type === 'text' ? (f.text?.min_length ?? null) : null,
    checkboxLabel: f.type === 'checkbox' ? (f.checkbox?.label ?? null) : null,
  }));
}

function featureRows(features: FeatureInput[], existingIds: Set<string>, problems: IssueList) {
  if (features.filter((f) => f.type === 'licenseKey').length > 1) problems.add('features', 'at most one licenseKey feature per product');
  return features.map((f, position) => {
    const id = f.id && existingIds.has(f.id) ? f.id : newId('feature');
    if (f.id && !existingIds.has(f.id)) problems.add(['features', position, 'id'], `feature ${f.id} is not a feature of this product`);
    if (f.type === 'customerCredits') {
      return {
        id,
        position,
        type: f.type,
        description: f.description,
        creditsAmount: BigInt(f.customer_credits.amount),
        creditsUnitLabel: f.customer_credits.unit_label ?? null,
        creditsBucketName: f.customer_credits.bucket_name ?? null,
      };
    }
    return {
      id,
      position,
      type: f.type,
      description: f.description,
      licenseActivationLimit: f.license_key.activation_limit ?? null,
      licenseExpiresInDays: f.license_key.expires_in_days ?? null,
    };
  });
}

async function usagePriceRows(ctx: RequestContext, prices: NonNullable<CreateProductInput['usage_prices']>, problems: IssueList) {
  const meters = await db(ctx).meter.findMany({ where: { id: { in: prices.map((p) => p.meter_id) }, status: 'active' }, select: { id: true } });
  const known = new Set(meters.map((m) => m.id));
  return prices.map((p, i) => {
    if (!known.has(p.meter_id)) problems.add(['usage_prices', i, 'meter_id'], `meter ${p.meter_id} not found`);
    if (prices.findIndex((o) => o.meter_id === p.meter_id) !== i) problems.add(['usage_prices', i, 'meter_id'], 'one usage price per meter');
    if (p.target_account_name && p.target_account !== 'per_unit') {
      problems.add(['usage_prices', i, 'target_account_name'], 'is only meaningful with target_account per_unit');
    }
    return {
      id: newId('usagePrice'),
      meterId: p.meter_id,
      unitPrice: p.unit_price,
      freeAllowance: p.free_allowance ?? 0n,
      cap: p.cap ?? null,
      settlementMode: p.settlement_mode,
      targetAccount: p.target_account ?? 'shared',
      targetAccountName: p.target_account_name ?? null,
      trialUsageMode: p.trial_usage_mode ?? 'free',
    };
  });
}

export async function createProduct(ctx: RequestContext, input: CreateProductInput): Promise<ProductWithRelations> {
  const problems = new IssueList();
  const fields = pickCustomFields(input, problems);
  const settings = settle(input, problems);
  const features = featureRows(input.features ?? [], new Set(), problems);
  const usagePrices = await usagePriceRows(ctx, input.usage_prices ?? [], problems);
  problems.throwIfAny();
  return db(ctx).product.create({
    data: {
      id: newId('product'),
      ...settings,
      customFields: { create: customFieldRows(fields ?? []) },
      features: { create: features },
      usagePrices: { create: usagePrices },
    },
    include: PRODUCT_INCLUDE,
  });
}

/** A product with the caller's selection (GraphQL) or the /v1 shape; null when the caller has no such product. */
export function findProduct<S extends ProductSelection = { include: typeof PRODUCT_INCLUDE }>(ctx: RequestContext, input: { id: string }, selection?: S) {
  return db(ctx).product.findUnique({ ...(selection ?? { include: PRODUCT_INCLUDE }), where: { id: input.id } }) as Promise<P.ProductGetPayload<S> | null>;
}

const cacheKey = (ctx: RequestContext, id: string) => `${ctx.storeId}:${ctx.mode}:${id}`;

/**
 * The hottest read (integrations and checkout pages fetch products constantly): served
 * from the process cache when the service runs one, else one prepared statement written by
 * hand (src/db/products.ts), the same value as the client's read with PRODUCT_INCLUDE.
 */
export async function findProductOrThrow(ctx: RequestContext, input: { id: string }): Promise<ProductWithRelations> {
  const load = () => orNotFound(readProduct(ctx, input.id), 'Product', input.id);
  return ctx.caches?.products ? ctx.caches.products.get(cacheKey(ctx, input.id), load) : load();
}

/**
 * Every change to an existing product goes through here: the row is locked, so concurrent
 * changes apply one after the other and none is lost (each sees the previous one's result);
 * the change announces itself inside the transaction (NOTIFY, delivered to other processes at
 * commit), and this process's own cache entry is dropped once it has committed.
 */
async function changeProduct(
  ctx: RequestContext,
  id: string,
  change: (ctx: RequestContext, current: ProductWithRelations) => Promise<ProductWithRelations>,
): Promise<ProductWithRelations> {
  const key = cacheKey(ctx, id);
  return inTransaction(ctx, async (tx) => {
    if (!(await lockRow(tx, 'Product', id))) throw notFound('Product', id);
    const current = await db(tx).product.findUniqueOrThrow({ where: { id }, include: PRODUCT_INCLUDE });
    const result = await change(tx, current);
    await notifyOnCommit(tx, PRODUCT_CHANGES, key);
    afterCommit(tx, () => ctx.caches?.products?.invalidate(key));
    return result;
  });
}

/** The store's products, newest first (ids are time-sortable), optionally by status. */
export function productListing(ctx: RequestContext, filter: ProductFilter) {
  const where: P.ProductWhereInput = filter.status ? { status: filter.status } : {};
  return listing(db(ctx).product, where, { id: 'desc' });
}

export function searchProducts(ctx: RequestContext, input: SearchProductsInput) {
  return productListing(ctx, input).page(input, { include: PRODUCT_INCLUDE });
}

/** PATCH: the fields given change, the others keep their values (read under the row lock). */
export async function updateProduct(ctx: RequestContext, patch: UpdateProductInput): Promise<ProductWithRelations> {
  return changeProduct(ctx, patch.id, async (tx, current) => {
    const problems = new IssueList();
    const billingType = patch.billing_type ?? current.billingType;
    const billingPeriod = patch.billing_period ?? (patch.billing_type === 'recurring' && current.billingType === 'onetime' ? undefined : current.billingPeriod);
    // The stored cadence of a preset is derived, so it only carries over while the period stays custom.
    const keepCadence = billingPeriod === 'custom' && current.billingPeriod === 'custom';
    const draft: ProductDraft = {
      name: patch.name ?? current.name,
      description: patch.description ?? current.description,
      image_urls:
        patch.image_urls ?? (patch.image_url !== undefined ? (patch.image_url ? [patch.image_url] : []) : current.imageUrls),
      price: patch.price ?? current.price,
      currency: patch.currency ?? current.currency,
      billing_type: billingType,
      billing_period: billingPeriod as ProductDraft['billing_period'],
      recurring_interval: patch.recurring_interval ?? (keepCadence ? (current.recurringInterval as ProductDraft['recurring_interval']) : undefined),
      recurring_interval_count: patch.recurring_interval_count ?? (keepCadence ? (current.recurringIntervalCount ?? undefined) : undefined),
      tax_mode: patch.tax_mode ?? current.taxMode,
      tax_category: patch.tax_category ?? (current.taxCategory as ProductDraft['tax_category']),
      business_net_pricing: patch.business_net_pricing ?? current.businessNetPricing,
      pay_what_you_want: patch.pay_what_you_want ?? current.payWhatYouWant,
      suggested_price: patch.suggested_price === null ? undefined : (patch.suggested_price ?? current.suggestedPrice ?? undefined),
      trial_period_days: patch.trial_period_days === null ? undefined : (patch.trial_period_days ?? current.trialPeriodDays ?? undefined),
      trial_price: patch.trial_price === null ? undefined : (patch.trial_price ?? current.trialPrice ?? undefined),
      default_success_url:
        patch.default_success_url === null ? undefined : (patch.default_success_url ?? current.defaultSuccessUrl ?? undefined),
      abandoned_cart_recovery_enabled: patch.abandoned_cart_recovery_enabled ?? current.abandonedCartRecoveryEnabled,
      usage_prices: patch.usage_prices ?? (billingType === 'onetime' ? [] : undefined),
    };
    const settings = settle(draft, problems);
    const fields = pickCustomFields(patch, problems);
    const features = patch.features
      ? featureRows(patch.features, new Set(current.features.map((f) => f.id)), problems)
      : undefined;
    // Metered prices belong to subscriptions: a product turned one-time loses them.
    const usagePrices = patch.usage_prices
      ? await usagePriceRows(tx, patch.usage_prices, problems)
      : billingType === 'onetime' && current.usagePrices.length
        ? []
        : undefined;
    problems.throwIfAny();
    return db(tx).product.update({
      where: { id: current.id },
      data: {
        ...settings,
        ...(fields ? { customFields: { deleteMany: {}, create: customFieldRows(fields) } } : {}),
        ...(features ? { features: { deleteMany: {}, create: features } } : {}),
        ...(usagePrices ? { usagePrices: { deleteMany: {}, create: usagePrices } } : {}),
      },
      include: PRODUCT_INCLUDE,
    });
  });
}

/** Archiving keeps the product readable (orders and subscriptions point at it) but no one can buy it any more. */
export async function archiveProduct(ctx: RequestContext, input: { id: string }): Promise<ProductWithRelations> {
  return changeProduct(ctx, input.id, (tx, current) =>
    db(tx).product.update({ where: { id: current.id }, data: { status: 'archived' }, include: PRODUCT_INCLUDE }),
  );
}

/**
 * For the checkout flow: a product that can still be bought, or a 400 naming `product_id`
 * that says why not (a product the caller names in a request body is bad input, not a
 * missing resource of the URL).
 */
export async function findPurchasableProductOrThrow(ctx: RequestContext, id: string): Promise<ProductWithRelations> {
  const refuse = (message: string) => new AppError('product_not_purchasable', message, [{ path: ['product_id'], message }]);
  let product: ProductWithRelations;
  try {
    product = await findProductOrThrow(ctx, { id });
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') throw refuse(`product ${id} does not exist`);
    throw err;
  }
  if (product.status !== 'active') throw refuse(`product ${id} is archived and can no longer be bought`);
  return product;
}
