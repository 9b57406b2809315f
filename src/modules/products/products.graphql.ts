import { apiEnum, builder, ModeEnum, MoneyRef } from '../../graphql/builder.js';
import { listQuery, lookupQuery } from '../../graphql/connection.js';
import { toApiInput } from '../../graphql/input.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { parseInput } from '../../lib/validation.js';
import { archiveProductOp, createProductOp, updateProductOp } from './products.operations.js';
import { productUrl } from './products.serializer.js';
import {
  BILLING_PERIODS,
  BILLING_TYPES,
  CUSTOM_FIELD_TYPES,
  FEATURE_TYPES,
  PRODUCT_STATUSES,
  productFilterSchema,
  RECURRING_INTERVALS,
  SETTLEMENT_MODES,
  TARGET_ACCOUNTS,
  TAX_CATEGORIES,
  TAX_MODES,
  TRIAL_USAGE_MODES,
} from './products.schemas.js';
import { findProduct, productListing } from './products.service.js';

export const BillingTypeEnum = apiEnum('BillingType', BILLING_TYPES);
const BillingPeriodEnum = apiEnum('BillingPeriod', BILLING_PERIODS, 'Presets stand for a cadence; `custom` takes recurringInterval and recurringIntervalCount');
const RecurringIntervalEnum = apiEnum('RecurringInterval', RECURRING_INTERVALS);
const ProductStatusEnum = apiEnum('ProductStatus', PRODUCT_STATUSES);
const TaxModeEnum = apiEnum('TaxMode', TAX_MODES);
const TaxCategoryEnum = apiEnum('TaxCategory', TAX_CATEGORIES);
const CustomFieldTypeEnum = apiEnum('CustomFieldType', CUSTOM_FIELD_TYPES);
const FeatureTypeEnum = apiEnum('FeatureType', FEATURE_TYPES);
const SettlementModeEnum = apiEnum('SettlementMode', SETTLEMENT_MODES);
const TargetAccountEnum = apiEnum('TargetAccount', TARGET_ACCOUNTS);
const TrialUsageModeEnum = apiEnum('TrialUsageMode', TRIAL_USAGE_MODES);

builder.prismaObject('ProductCustomField', {
  fields: (t) => ({
    type: t.field({ type: CustomFieldTypeEnum, resolve: (f) => f.type as (typeof CUSTOM_FIELD_TYPES)[number] }),
    key: t.exposeString('key'),
    label: t.exposeString('label'),
    optional: t.exposeBoolean('optional'),
    maxLength: t.exposeInt('textMaxLength', { nullable: true }),
    minimumLength: t.exposeInt('textMinLength', { nullable: true }),
    checkboxLabel: t.exposeString('checkboxLabel', { nullable: true, description: 'May contain a Markdown link' }),
  }),
});

builder.prismaObject('ProductFeature', {
  fields: (t) => ({
    id: t.exposeString('id'),
    type: t.field({ type: FeatureTypeEnum, resolve: (f) => f.type as (typeof FEATURE_TYPES)[number] }),
    description: t.exposeString('description'),
    creditsAmount: t.string({ nullable: true, description: 'Credits granted (decimal integer string)', resolve: (f) => f.creditsAmount?.toString() ?? null }),
    creditsUnitLabel: t.exposeString('creditsUnitLabel', { nullable: true }),
    creditsBucketName: t.exposeString('creditsBucketName', { nullable: true }),
    licenseActivationLimit: t.exposeInt('licenseActivationLimit', { nullable: true }),
    licenseExpiresInDays: t.exposeInt('licenseExpiresInDays', { nullable: true }),
  }),
});

builder.prismaObject('UsagePrice', {
  fields: (t) => ({
    id: t.exposeString('id'),
    meterId: t.exposeString('meterId'),
    unitPrice: t.field({ type: 'Decimal', description: 'Minor units per meter unit, exact', resolve: (u) => u.unitPrice.toString() }),
    freeAllowance: t.string({ description: 'Meter units included per period (decimal integer string)', resolve: (u) => u.freeAllowance.toString() }),
    cap: t.field({ type: 'MinorUnits', nullable: true, description: 'Most a period is charged, in minor units of the product currency', resolve: (u) => u.cap }),
    settlementMode: t.field({ type: SettlementModeEnum, resolve: (u) => u.settlementMode as (typeof SETTLEMENT_MODES)[number] }),
    targetAccount: t.field({ type: TargetAccountEnum, resolve: (u) => u.targetAccount as (typeof TARGET_ACCOUNTS)[number] }),
    targetAccountName: t.exposeString('targetAccountName', { nullable: true }),
    trialUsageMode: t.field({ type: TrialUsageModeEnum, resolve: (u) => u.trialUsageMode as (typeof TRIAL_USAGE_MODES)[number] }),
  }),
});

const money = (amount: bigint | null, currency: string) => (amount === null ? null : { amount, currency });

export const ProductNode = builder.prismaNode('Product', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    price: t.field({ type: MoneyRef, description: 'Zero for a free product; the minimum for pay-what-you-want', select: { price: true, currency: true }, resolve: (p) => ({ amount: p.price, currency: p.currency }) }),
    billingType: t.expose('billingType', { type: BillingTypeEnum }),
    billingPeriod: t.field({ type: BillingPeriodEnum, resolve: (p) => p.billingPeriod as (typeof BILLING_PERIODS)[number] }),
    recurringInterval: t.field({ type: RecurringIntervalEnum, nullable: true, resolve: (p) => p.recurringInterval as (typeof RECURRING_INTERVALS)[number] | null }),
    recurringIntervalCount: t.expose('recurringIntervalCount', { type: 'PositiveInt', nullable: true }),
    status: t.expose('status', { type: ProductStatusEnum }),
    taxMode: t.expose('taxMode', { type: TaxModeEnum }),
    taxCategory: t.field({ type: TaxCategoryEnum, resolve: (p) => p.taxCategory as (typeof TAX_CATEGORIES)[number] }),
    businessNetPricing: t.exposeBoolean('businessNetPricing'),
    payWhatYouWant: t.exposeBoolean('payWhatYouWant'),
    suggestedPrice: t.field({ type: MoneyRef, nullable: true, select: { suggestedPrice: true, currency: true }, resolve: (p) => money(p.suggestedPrice, p.currency) }),
    trialPeriodDays: t.expose('trialPeriodDays', { type: 'PositiveInt', nullable: true }),
    trialPrice: t.field({ type: MoneyRef, nullable: true, select: { trialPrice: true, currency: true }, resolve: (p) => money(p.trialPrice, p.currency) }),
    imageUrl: t.string({ nullable: true, select: { imageUrls: true }, resolve: (p) => p.imageUrls[0] ?? null }),
    imageUrls: t.exposeStringList('imageUrls'),
    defaultSuccessUrl: t.exposeString('defaultSuccessUrl', { nullable: true }),
    abandonedCartRecoveryEnabled: t.exposeBoolean('abandonedCartRecoveryEnabled'),
    productUrl: t.string({ select: { id: true }, resolve: (p, _a, ctx) => productUrl(ctx.core.baseUrl, p.id) }),
    customFields: t.relation('customFields', { query: { orderBy: { position: 'asc' } } }),
    features: t.relation('features', { query: { orderBy: { position: 'asc' } } }),
    usagePrices: t.relation('usagePrices', { query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

listQuery('products', {
  type: 'Product',
  description: "The store's products in this environment, newest first",
  args: (arg) => ({ status: arg({ type: ProductStatusEnum }) }),
  listing: (ctx, args) => productListing(ctx, parseInput(productFilterSchema, toApiInput(args))),
});

lookupQuery('product', { type: 'Product', what: 'A product by id (prod_…)', find: findProduct });

const CustomFieldInput = builder.inputType('CustomFieldInput', {
  fields: (t) => ({
    type: t.field({ type: CustomFieldTypeEnum, required: true }),
    key: t.string({ required: true }),
    label: t.string({ required: true }),
    optional: t.boolean(),
    text: t.field({ type: builder.inputType('TextFieldConfigInput', { fields: (u) => ({ maxLength: u.int(), minLength: u.int() }) }) }),
    checkbox: t.field({ type: builder.inputType('CheckboxFieldConfigInput', { fields: (u) => ({ label: u.string() }) }) }),
  }),
});

const FeatureInput = builder.inputType('ProductFeatureInput', {
  fields: (t) => ({
    id: t.string({ description: 'Keep an existing feature (its id) when replacing the list' }),
    type: t.field({ type: FeatureTypeEnum, required: true }),
    description: t.string(),
    customerCredits: t.field({
      type: builder.inputType('CustomerCreditsFeatureInput', {
        fields: (u) => ({ amount: u.string({ required: true, description: 'Decimal integer string' }), unitLabel: u.string(), bucketName: u.string() }),
      }),
    }),
    licenseKey: t.field({
      type: builder.inputType('LicenseKeyFeatureInput', { fields: (u) => ({ activationLimit: u.int(), expiresInDays: u.int() }) }),
    }),
  }),
});

const UsagePriceInput = builder.inputType('UsagePriceInput', {
  fields: (t) => ({
    meterId: t.id({ required: true }),
    unitPrice: t.field({ type: 'Decimal', required: true, description: 'Minor units per meter unit; fractions allowed' }),
    freeAllowance: t.field({ type: 'MinorUnits', description: 'Meter units included per period' }),
    cap: t.field({ type: 'MinorUnits' }),
    settlementMode: t.field({ type: SettlementModeEnum, required: true }),
    targetAccount: t.field({ type: TargetAccountEnum }),
    targetAccountName: t.string(),
    trialUsageMode: t.field({ type: TrialUsageModeEnum }),
  }),
});

/** Create and update take the same fields (update: all optional, plus the id); the shared schema checks them. */
const productInput = (name: string, required: boolean) =>
  builder.inputType(name, {
    fields: (t) => ({
      ...(required ? {} : { id: t.id({ required: true }) }),
      name: t.string({ required }),
      description: t.string(),
      imageUrl: t.string(),
      imageUrls: t.stringList(),
      price: t.field({ type: 'MinorUnits', required, description: '0 (free) or at least 100' }),
      currency: t.field({ type: 'Currency', required }),
      billingType: t.field({ type: BillingTypeEnum, required }),
      billingPeriod: t.field({ type: BillingPeriodEnum }),
      recurringInterval: t.field({ type: RecurringIntervalEnum }),
      recurringIntervalCount: t.int(),
      taxMode: t.field({ type: TaxModeEnum }),
      taxCategory: t.field({ type: TaxCategoryEnum }),
      businessNetPricing: t.boolean(),
      payWhatYouWant: t.boolean(),
      suggestedPrice: t.field({ type: 'MinorUnits' }),
      trialPeriodDays: t.int(),
      trialPrice: t.field({ type: 'MinorUnits' }),
      defaultSuccessUrl: t.string(),
      customFields: t.field({ type: [CustomFieldInput] }),
      abandonedCartRecoveryEnabled: t.boolean(),
      usagePrices: t.field({ type: [UsagePriceInput] }),
      features: t.field({ type: [FeatureInput] }),
    }),
  });

const ProductIdInput = builder.inputType('ArchiveProductInput', { fields: (t) => ({ id: t.id({ required: true }) }) });

operationMutation('createProduct', {
  op: createProductOp,
  input: productInput('CreateProductInput', true),
  payload: payloadType('CreateProductPayload', 'product', 'Product', 'The product created'),
  description: 'Creates a product (one-time, free or recurring)',
});

operationMutation('updateProduct', {
  op: updateProductOp,
  input: productInput('UpdateProductInput', false),
  payload: payloadType('UpdateProductPayload', 'product', 'Product', 'The product as changed'),
  description: 'Changes the fields given; the others keep their values',
});

operationMutation('archiveProduct', {
  op: archiveProductOp,
  input: ProductIdInput,
  payload: payloadType('ArchiveProductPayload', 'product', 'Product', 'The archived product'),
  description: 'Archives a product: it stays readable and can no longer be bought',
});
