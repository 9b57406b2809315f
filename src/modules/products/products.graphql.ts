import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum, MoneyRef } from '../../graphql/builder.js';
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

export const BillingTypeEnum = apiEnum('BillingType', BILLING_TYPES, 'How a product is paid: once, or every period by a subscription', {
  recurring: 'A subscription, charged every period with the saved card',
  onetime: 'Paid once',
});
const BillingPeriodEnum = apiEnum('BillingPeriod', BILLING_PERIODS, 'Presets stand for a cadence; `custom` takes recurringInterval and recurringIntervalCount', {
  once: 'One-time products',
  'every-three-months': 'Every 3 months',
  'every-six-months': 'Every 6 months',
  custom: 'Every recurringIntervalCount × recurringInterval',
});
const RecurringIntervalEnum = apiEnum('RecurringInterval', RECURRING_INTERVALS, 'The unit of a recurring cadence; recurringIntervalCount of them make a period');
const ProductStatusEnum = apiEnum('ProductStatus', PRODUCT_STATUSES, 'Whether a product can be bought', {
  archived: 'Readable, no longer for sale',
});
const TaxModeEnum = apiEnum('TaxMode', TAX_MODES, 'Whether tax is inside the price or added on top', {
  inclusive: 'The price includes tax',
  exclusive: 'Tax is added on top of the price',
});
const TaxCategoryEnum = apiEnum('TaxCategory', TAX_CATEGORIES, 'What the product is for tax: with the buyer’s country, picks the rate in the tax table');
const CustomFieldTypeEnum = apiEnum('CustomFieldType', CUSTOM_FIELD_TYPES, 'What the buyer fills in at checkout: a text box or a checkbox');
const FeatureTypeEnum = apiEnum('FeatureType', FEATURE_TYPES, 'What buying the product grants, besides the product itself', {
  customerCredits: 'Credits into the buyer’s credit bucket, at the purchase and every paid renewal',
  licenseKey: 'A license key for the buyer’s software',
});
const SettlementModeEnum = apiEnum('SettlementMode', SETTLEMENT_MODES, 'How metered usage is paid on the renewal invoice', {
  prepaid: 'Settled from the customer’s credits of the meter’s unit label first; the rest billed as money',
  postpaid: 'Billed as money',
});
const TargetAccountEnum = apiEnum('TargetAccount', TARGET_ACCOUNTS, 'The /v1 `target_account` of a usage price: `per_unit` names its account in targetAccountName');
const TrialUsageModeEnum = apiEnum('TrialUsageMode', TRIAL_USAGE_MODES, 'Whether usage during a trial period is billed', {
  free: 'Usage of a trial period is not billed',
  accrue: 'Usage of a trial period is billed like any other',
});

builder.prismaObject('ProductCustomField', {
  description: 'A question the checkout page asks the buyer (at most 3 per product, in this order)',
  fields: (t) => ({
    type: t.field({ type: CustomFieldTypeEnum, description: 'A text box or a checkbox', resolve: (f) => f.type as (typeof CUSTOM_FIELD_TYPES)[number] }),
    key: t.exposeString('key', { description: 'Names the answer in the checkout’s custom fields; unique per product' }),
    label: t.exposeString('label', { description: 'What the page shows above the field' }),
    optional: t.exposeBoolean('optional', { description: 'The buyer may leave it empty (unchecked)' }),
    maxLength: t.exposeInt('textMaxLength', { nullable: true, description: 'Text fields: most characters accepted; null when not limited' }),
    minimumLength: t.exposeInt('textMinLength', { nullable: true, description: 'Text fields: fewest characters accepted; null when not limited' }),
    checkboxLabel: t.exposeString('checkboxLabel', { nullable: true, description: 'May contain a Markdown link' }),
  }),
});

builder.prismaObject('ProductFeature', {
  description: 'Something a purchase grants: credits or a license key',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'feat_…; send it back in updateProduct to keep the feature' }),
    type: t.field({ type: FeatureTypeEnum, description: 'What it grants; the matching fields below are set', resolve: (f) => f.type as (typeof FEATURE_TYPES)[number] }),
    description: t.exposeString('description', { description: 'The seller’s text for buyers; may be empty' }),
    creditsAmount: t.string({ nullable: true, description: 'Credits granted (decimal integer string)', resolve: (f) => f.creditsAmount?.toString() ?? null }),
    creditsUnitLabel: t.exposeString('creditsUnitLabel', { nullable: true, description: 'customerCredits: the unit of the bucket credited (calls, tokens); null: `credits`' }),
    creditsBucketName: t.exposeString('creditsBucketName', { nullable: true, description: 'customerCredits: the buyer’s bucket credited; null: `default`' }),
    licenseActivationLimit: t.exposeInt('licenseActivationLimit', { nullable: true, description: 'licenseKey: devices a key may activate; null: unlimited' }),
    licenseExpiresInDays: t.exposeInt('licenseExpiresInDays', { nullable: true, description: 'licenseKey: days from the purchase until the key expires; null: never' }),
  }),
});

builder.prismaObject('UsagePrice', {
  description: 'A metered price of a recurring product: the units a meter counted in a period, billed on the invoice that renews it',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'up_…' }),
    meterId: t.exposeString('meterId', { description: 'The meter whose units it bills (mtr_…)' }),
    unitPrice: t.field({ type: 'Decimal', description: 'Minor units per meter unit, exact', resolve: (u) => u.unitPrice.toString() }),
    freeAllowance: t.string({ description: 'Meter units included per period (decimal integer string)', resolve: (u) => u.freeAllowance.toString() }),
    cap: t.field({ type: 'MinorUnits', nullable: true, description: 'Most a period is charged, in minor units of the product currency', resolve: (u) => u.cap }),
    settlementMode: t.field({ type: SettlementModeEnum, description: 'Paid from credits first (prepaid) or as money (postpaid)', resolve: (u) => u.settlementMode as (typeof SETTLEMENT_MODES)[number] }),
    targetAccount: t.field({ type: TargetAccountEnum, description: 'The /v1 `target_account`; default shared', resolve: (u) => u.targetAccount as (typeof TARGET_ACCOUNTS)[number] }),
    targetAccountName: t.exposeString('targetAccountName', { nullable: true, description: 'With targetAccount per_unit: the account’s name; else null' }),
    trialUsageMode: t.field({ type: TrialUsageModeEnum, description: 'Whether a trial period’s usage is billed', resolve: (u) => u.trialUsageMode as (typeof TRIAL_USAGE_MODES)[number] }),
  }),
});

const money = (amount: bigint | null, currency: string) => (amount === null ? null : { amount, currency });

export const ProductNode = builder.prismaNode('Product', {
  id: { field: 'id', description: 'The /v1 id (prod_…)' },
  nullable: true,
  description: 'Something the store sells: one-time, free or recurring (a subscription), with its price, tax settings and what a purchase grants',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { description: 'Shown to buyers on the checkout page' }),
    description: t.exposeString('description', { description: 'Shown to buyers; may be empty' }),
    price: t.field({ type: MoneyRef, description: 'Zero for a free product; the minimum for pay-what-you-want', select: { price: true, currency: true }, resolve: (p) => ({ amount: p.price, currency: p.currency }) }),
    billingType: t.expose('billingType', { type: BillingTypeEnum, description: 'One-time or recurring (a subscription)' }),
    billingPeriod: t.field({ type: BillingPeriodEnum, description: 'How often a subscription renews; `once` for one-time products', resolve: (p) => p.billingPeriod as (typeof BILLING_PERIODS)[number] }),
    recurringInterval: t.field({ type: RecurringIntervalEnum, nullable: true, description: 'Unit of the renewal cadence (from the preset, or given for `custom`); null for one-time products', resolve: (p) => p.recurringInterval as (typeof RECURRING_INTERVALS)[number] | null }),
    recurringIntervalCount: t.expose('recurringIntervalCount', { type: 'PositiveInt', nullable: true, description: 'How many recurringIntervals make a period (3 months: 3); null for one-time products' }),
    status: t.expose('status', { type: ProductStatusEnum, description: 'Archived products can no longer be bought' }),
    taxMode: t.expose('taxMode', { type: TaxModeEnum, description: 'Whether the price includes tax or tax is added on top' }),
    taxCategory: t.field({ type: TaxCategoryEnum, description: 'Picks the tax rate, with the buyer’s country', resolve: (p) => p.taxCategory as (typeof TAX_CATEGORIES)[number] }),
    businessNetPricing: t.exposeBoolean('businessNetPricing', { description: 'A business buyer under reverse charge pays the inclusive price net of its tax' }),
    payWhatYouWant: t.exposeBoolean('payWhatYouWant', { description: 'One-time products: the buyer chooses the amount, at least `price`' }),
    suggestedPrice: t.field({ type: MoneyRef, nullable: true, description: 'Pay-what-you-want: the amount suggested to the buyer; null when none', select: { suggestedPrice: true, currency: true }, resolve: (p) => money(p.suggestedPrice, p.currency) }),
    trialPeriodDays: t.expose('trialPeriodDays', { type: 'PositiveInt', nullable: true, description: 'Days of trial before the first paid period; null: no trial' }),
    trialPrice: t.field({ type: MoneyRef, nullable: true, description: 'Charged to start the trial; null: a free trial', select: { trialPrice: true, currency: true }, resolve: (p) => money(p.trialPrice, p.currency) }),
    imageUrl: t.string({ nullable: true, description: 'The cover image: the first of imageUrls; null when there is none', select: { imageUrls: true }, resolve: (p) => p.imageUrls[0] ?? null }),
    imageUrls: t.exposeStringList('imageUrls', { description: 'Product images (.png or .jpg URLs, at most 8), cover first' }),
    defaultSuccessUrl: t.exposeString('defaultSuccessUrl', { nullable: true, description: 'Where buyers go after paying when the checkout names no successUrl; null: the receipt page' }),
    abandonedCartRecoveryEnabled: t.exposeBoolean('abandonedCartRecoveryEnabled', { description: 'The /v1 `abandoned_cart_recovery_enabled` setting, kept with the product' }),
    productUrl: t.string({ description: 'The buy link (/buy/prod_…): each visit opens a fresh checkout', select: { id: true }, resolve: (p, _a, ctx) => productUrl(ctx.core.baseUrl, p.id) }),
    customFields: t.relation('customFields', { description: 'Questions the checkout page asks, in order', query: { orderBy: { position: 'asc' } } }),
    features: t.relation('features', { description: 'What a purchase grants (credits, a license key), in order', query: { orderBy: { position: 'asc' } } }),
    usagePrices: t.relation('usagePrices', { description: 'Metered prices billed on each renewal invoice (recurring products)', query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the product was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the product last changed' }),
  }),
});

listQuery('products', {
  type: 'Product',
  description: "The store's products in this environment, newest first",
  args: (arg) => ({ status: arg({ type: ProductStatusEnum, description: 'Only products of this status' }) }),
  listing: (ctx, args) => productListing(ctx, parseInput(productFilterSchema, toApiInput(args))),
});

lookupQuery('product', { type: 'Product', what: 'A product by id (prod_…)', find: findProduct });

const CustomFieldInput = builder.inputType('CustomFieldInput', {
  description: 'A question the checkout page asks the buyer',
  fields: (t) => ({
    type: t.field({ type: CustomFieldTypeEnum, required: true, description: 'A text box or a checkbox' }),
    key: t.string({ required: true, description: 'Names the answer: 1 to 64 letters, digits, - or _, unique per product' }),
    label: t.string({ required: true, description: 'What the page shows above the field, up to 200 characters' }),
    optional: t.boolean({ description: 'The buyer may leave it empty; default false' }),
    text: t.field({
      description: 'Text fields: length bounds',
      type: builder.inputType('TextFieldConfigInput', {
        description: 'Length bounds of a text field',
        fields: (u) => ({ maxLength: u.int({ description: 'Most characters, 1 to 1000' }), minLength: u.int({ description: 'Fewest characters, 0 to 1000, not above maxLength' }) }),
      }),
    }),
    checkbox: t.field({
      description: 'Checkbox fields: the text beside the box',
      type: builder.inputType('CheckboxFieldConfigInput', {
        description: 'The text of a checkbox field',
        fields: (u) => ({ label: u.string({ description: 'Text beside the box, up to 500 characters; may contain a Markdown link' }) }),
      }),
    }),
  }),
});

const FeatureInput = builder.inputType('ProductFeatureInput', {
  description: 'Something a purchase grants; give the object matching `type`',
  fields: (t) => ({
    id: t.string({ description: 'Keep an existing feature (its id) when replacing the list' }),
    type: t.field({ type: FeatureTypeEnum, required: true, description: 'customerCredits (with customerCredits) or licenseKey (with licenseKey, at most one per product)' }),
    description: t.string({ description: 'Text for buyers, up to 500 characters; default empty' }),
    customerCredits: t.field({
      description: 'For type customerCredits',
      type: builder.inputType('CustomerCreditsFeatureInput', {
        description: 'Credits granted into the buyer’s bucket at the purchase and every paid renewal',
        fields: (u) => ({
          amount: u.string({ required: true, description: 'Decimal integer string' }),
          unitLabel: u.string({ description: 'Unit of the bucket (calls, tokens), up to 50 characters; default `credits`' }),
          bucketName: u.string({ description: 'The buyer’s bucket to credit; default `default`' }),
        }),
      }),
    }),
    licenseKey: t.field({
      description: 'For type licenseKey',
      type: builder.inputType('LicenseKeyFeatureInput', {
        description: 'A license key issued to the buyer',
        fields: (u) => ({ activationLimit: u.int({ description: 'Devices a key may activate, 1 to 10000; absent: unlimited' }), expiresInDays: u.int({ description: 'Days from the purchase until the key expires, 1 to 36500; absent: never' }) }),
      }),
    }),
  }),
});

const UsagePriceInput = builder.inputType('UsagePriceInput', {
  description: 'A metered price of a recurring product (one per meter, at most 10)',
  fields: (t) => ({
    meterId: t.id({ required: true, description: 'The meter whose units it bills (mtr_…)' }),
    unitPrice: t.field({ type: 'Decimal', required: true, description: 'Minor units per meter unit; fractions allowed' }),
    freeAllowance: t.field({ type: 'MinorUnits', description: 'Meter units included per period' }),
    cap: t.field({ type: 'MinorUnits', description: 'Most a period is charged, in minor units of the product currency; absent: no cap' }),
    settlementMode: t.field({ type: SettlementModeEnum, required: true, description: 'prepaid (from credits first) or postpaid (as money)' }),
    targetAccount: t.field({ type: TargetAccountEnum, description: 'Default shared' }),
    targetAccountName: t.string({ description: 'Only with targetAccount per_unit' }),
    trialUsageMode: t.field({ type: TrialUsageModeEnum, description: 'Default free: a trial period’s usage is not billed' }),
  }),
});

/** Create and update take the same fields (update: all optional, plus the id); the shared schema checks them. */
const productInput = (name: string, required: boolean) => {
  // Defaults are what a new product gets; on update a field not given keeps its value.
  const byDefault = (text: string, value: string) => (required ? `${text}; default ${value}` : text);
  return builder.inputType(name, {
    description: required ? 'A new product' : 'The product’s fields to change; those not given keep their values, lists given replace the whole list',
    fields: (t) => ({
      ...(required ? {} : { id: t.id({ required: true, description: 'The product (prod_…)' }) }),
      name: t.string({ required, description: 'Shown to buyers, up to 200 characters' }),
      description: t.string({ description: 'Shown to buyers, up to 5000 characters' }),
      imageUrl: t.string({ description: 'One image (.png or .jpg URL); imageUrls wins when both are given' }),
      imageUrls: t.stringList({ description: 'Images (.png or .jpg URLs), cover first, at most 8' }),
      price: t.field({ type: 'MinorUnits', required, description: '0 (free) or at least 100' }),
      currency: t.field({ type: 'Currency', required, description: 'ISO 4217 code of every amount of the product' }),
      billingType: t.field({ type: BillingTypeEnum, required, description: 'One-time or recurring (a subscription)' }),
      billingPeriod: t.field({ type: BillingPeriodEnum, description: 'Recurring products: how often it renews' }),
      recurringInterval: t.field({ type: RecurringIntervalEnum, description: 'With billingPeriod custom: the unit of the cadence' }),
      recurringIntervalCount: t.int({ description: 'With billingPeriod custom: how many intervals make a period (at most 365 days, 52 weeks, 24 months or 3 years)' }),
      taxMode: t.field({ type: TaxModeEnum, description: byDefault('Whether the price includes tax or tax is added on top', 'inclusive') }),
      taxCategory: t.field({ type: TaxCategoryEnum, description: byDefault('Picks the tax rate, with the buyer’s country', 'saas') }),
      businessNetPricing: t.boolean({ description: byDefault('A business buyer under reverse charge pays the inclusive price net of its tax', 'false') }),
      payWhatYouWant: t.boolean({ description: byDefault('One-time products: the buyer chooses the amount, at least price', 'false') }),
      suggestedPrice: t.field({ type: 'MinorUnits', description: 'Pay-what-you-want: the amount suggested, at least price' }),
      trialPeriodDays: t.int({ description: 'Recurring products: days of trial before the first paid period, 1 to 730' }),
      trialPrice: t.field({ type: 'MinorUnits', description: 'Charged to start the trial (at least 100, below price); absent: a free trial' }),
      defaultSuccessUrl: t.string({ description: 'Where buyers go after paying when the checkout names no successUrl' }),
      customFields: t.field({ type: [CustomFieldInput], description: 'Questions the checkout page asks, at most 3' }),
      abandonedCartRecoveryEnabled: t.boolean({ description: byDefault('The /v1 `abandoned_cart_recovery_enabled` setting', 'false') }),
      usagePrices: t.field({ type: [UsagePriceInput], description: 'Recurring products: metered prices, at most 10' }),
      features: t.field({ type: [FeatureInput], description: 'What a purchase grants, at most 10' }),
    }),
  });
};

const ProductIdInput = builder.inputType('ArchiveProductInput', { description: 'The product to archive', fields: (t) => ({ id: t.id({ required: true, description: 'The product (prod_…)' }) }) });

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
