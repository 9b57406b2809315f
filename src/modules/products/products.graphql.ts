import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf, toApiInput } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { productUrl } from './products.serializer.js';
import { BILLING_PERIODS, RECURRING_INTERVALS, TAX_CATEGORIES } from './products.schemas.js';
import { archiveProduct, createProduct, findProduct, productListFilter, updateProduct } from './products.service.js';

const BillingTypeEnum = builder.enumType('BillingType', { values: ['recurring', 'onetime'] as const });
const ProductStatusEnum = builder.enumType('ProductStatus', { values: ['active', 'archived'] as const });
const TaxModeEnum = builder.enumType('TaxMode', { values: ['inclusive', 'exclusive'] as const });
const CustomFieldTypeEnum = builder.enumType('CustomFieldType', { values: ['text', 'checkbox'] as const });
// GraphQL enum values cannot contain '-', so cadences and tax categories stay strings, checked by the shared schema.
const billingPeriodDescription = `One of: ${BILLING_PERIODS.join(', ')}`;

builder.prismaObject('ProductCustomField', {
  fields: (t) => ({
    type: t.exposeString('type', { description: 'text | checkbox' }),
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
    type: t.exposeString('type', { description: 'customerCredits | licenseKey' }),
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
    unitPrice: t.string({ description: 'Minor units per meter unit, exact decimal', resolve: (u) => u.unitPrice.toString() }),
    freeAllowance: t.string({ resolve: (u) => u.freeAllowance.toString() }),
    cap: t.exposeInt('cap', { nullable: true }),
    settlementMode: t.exposeString('settlementMode'),
    targetAccount: t.exposeString('targetAccount'),
    targetAccountName: t.exposeString('targetAccountName', { nullable: true }),
    trialUsageMode: t.exposeString('trialUsageMode'),
  }),
});

export const ProductNode = builder.prismaNode('Product', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    price: t.expose('price', { type: 'NonNegativeInt', description: 'Minor units; 0 = free' }),
    currency: t.expose('currency', { type: 'Currency' }),
    billingType: t.expose('billingType', { type: BillingTypeEnum }),
    billingPeriod: t.exposeString('billingPeriod', { description: billingPeriodDescription }),
    recurringInterval: t.exposeString('recurringInterval', { nullable: true }),
    recurringIntervalCount: t.expose('recurringIntervalCount', { type: 'PositiveInt', nullable: true }),
    status: t.expose('status', { type: ProductStatusEnum }),
    taxMode: t.expose('taxMode', { type: TaxModeEnum }),
    taxCategory: t.exposeString('taxCategory'),
    businessNetPricing: t.exposeBoolean('businessNetPricing'),
    payWhatYouWant: t.exposeBoolean('payWhatYouWant'),
    suggestedPrice: t.expose('suggestedPrice', { type: 'NonNegativeInt', nullable: true }),
    trialPeriodDays: t.expose('trialPeriodDays', { type: 'PositiveInt', nullable: true }),
    trialPrice: t.expose('trialPrice', { type: 'NonNegativeInt', nullable: true }),
    imageUrl: t.string({ nullable: true, select: { imageUrls: true }, resolve: (p) => p.imageUrls[0] ?? null }),
    imageUrls: t.exposeStringList('imageUrls'),
    defaultSuccessUrl: t.exposeString('defaultSuccessUrl', { nullable: true }),
    productUrl: t.string({ select: { id: true }, resolve: (p, _a, ctx) => productUrl(ctx.core.baseUrl, p.id) }),
    customFields: t.relation('customFields', { query: { orderBy: { position: 'asc' } } }),
    features: t.relation('features', { query: { orderBy: { position: 'asc' } } }),
    usagePrices: t.relation('usagePrices', { query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  products: t.prismaConnection({
    type: 'Product',
    cursor: 'id',
    description: "The store's products in this environment, newest first",
    args: { status: t.arg({ type: ProductStatusEnum, required: false }) },
    totalCount: (_p, args, ctx) => ctx.core.db.product.count({ where: productListFilter(ctx.core, args.status ?? undefined) }),
    resolve: (query, _p, args, ctx) =>
      ctx.core.db.product.findMany({ ...query, where: productListFilter(ctx.core, args.status ?? undefined), orderBy: { id: 'desc' } }),
  }),
  product: t.prismaField({
    type: 'Product',
    description: 'A product by its /v1 id (prod_…) or global id',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _p, args, ctx) => findProduct(ctx.core, apiIdOf(String(args.id), 'Product'), query),
  }),
}));

const CustomFieldInput = builder.inputType('CustomFieldInput', {
  fields: (t) => ({
    type: t.field({ type: CustomFieldTypeEnum, required: true }),
    key: t.string({ required: true }),
    label: t.string({ required: true }),
    optional: t.boolean(),
    text: t.field({
      type: builder.inputType('TextFieldConfigInput', {
        fields: (u) => ({ maxLength: u.int(), minLength: u.int() }),
      }),
    }),
    checkbox: t.field({
      type: builder.inputType('CheckboxFieldConfigInput', { fields: (u) => ({ label: u.string() }) }),
    }),
  }),
});

const FeatureInput = builder.inputType('ProductFeatureInput', {
  fields: (t) => ({
    id: t.string(),
    type: t.string({ required: true, description: 'customerCredits | licenseKey' }),
    description: t.string(),
    customerCredits: t.field({
      type: builder.inputType('CustomerCreditsFeatureInput', {
        fields: (u) => ({ amount: u.string({ required: true }), unitLabel: u.string(), bucketName: u.string() }),
      }),
    }),
    licenseKey: t.field({
      type: builder.inputType('LicenseKeyFeatureInput', {
        fields: (u) => ({ activationLimit: u.int(), expiresInDays: u.int() }),
      }),
    }),
  }),
});

const UsagePriceInput = builder.inputType('UsagePriceInput', {
  fields: (t) => ({
    id: t.string(),
    meterId: t.string({ required: true }),
    unitPrice: t.float({ required: true, description: 'Minor units per meter unit; fractions allowed' }),
    freeAllowance: t.int(),
    cap: t.int(),
    settlementMode: t.string({ required: true }),
    targetAccount: t.string(),
    targetAccountName: t.string(),
    trialUsageMode: t.string(),
  }),
});

/** Mirrors createProductSchema; the service validates with that schema. */
const productInputFields = (required: boolean) =>
  builder.inputType(required ? 'CreateProductInput' : 'UpdateProductInput', {
    fields: (t) => ({
      name: t.string({ required }),
      description: t.string(),
      imageUrl: t.string(),
      imageUrls: t.stringList(),
      price: t.int({ required, description: 'Minor units; 0 or at least 100' }),
      currency: t.field({ type: 'Currency', required }),
      billingType: t.field({ type: BillingTypeEnum, required }),
      billingPeriod: t.string({ description: billingPeriodDescription }),
      recurringInterval: t.string({ description: `One of: ${RECURRING_INTERVALS.join(', ')}` }),
      recurringIntervalCount: t.int(),
      taxMode: t.field({ type: TaxModeEnum }),
      taxCategory: t.string({ description: `One of: ${TAX_CATEGORIES.join(', ')}` }),
      businessNetPricing: t.boolean(),
      payWhatYouWant: t.boolean(),
      suggestedPrice: t.int(),
      trialPeriodDays: t.int(),
      trialPrice: t.int(),
      defaultSuccessUrl: t.string(),
      customFields: t.field({ type: [CustomFieldInput] }),
      abandonedCartRecoveryEnabled: t.boolean(),
      usagePrices: t.field({ type: [UsagePriceInput] }),
      features: t.field({ type: [FeatureInput] }),
    }),
  });

const CreateProductInput = productInputFields(true);
const UpdateProductInput = productInputFields(false);

builder.mutationFields((t) => ({
  createProduct: t.prismaField({
    type: 'Product',
    args: { input: t.arg({ type: CreateProductInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const created = await createProduct(ctx.core, toApiInput(args.input));
      return findProduct(ctx.core, created.id, query);
    },
  }),
  updateProduct: t.prismaField({
    type: 'Product',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateProductInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const updated = await updateProduct(ctx.core, apiIdOf(String(args.id), 'Product'), toApiInput(args.input));
      return findProduct(ctx.core, updated.id, query);
    },
  }),
  archiveProduct: t.prismaField({
    type: 'Product',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const archived = await archiveProduct(ctx.core, apiIdOf(String(args.id), 'Product'));
      return findProduct(ctx.core, archived.id, query);
    },
  }),
}));
