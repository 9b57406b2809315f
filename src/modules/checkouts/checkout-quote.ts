import type { Discount, Prisma } from '../../generated/prisma/client.js';
import { maxOf } from '../../lib/money.js';
import type { ProductWithRelations } from '../products/products.service.js';
import { discountAmountFor } from '../discounts/discounts.service.js';
import { computeTax, type TaxMode } from '../tax/tax.js';

/** Everything the buyer is charged, in minor units; stored on the checkout when payment starts. */
export interface Quote {
  currency: string;
  unit_price: bigint;
  units: number;
  sub_total: bigint;
  discount_amount: bigint;
  tax_amount: bigint;
  tax_rate_bp: number;
  tax_country: string | null;
  tax_mode: TaxMode;
  reverse_charge: boolean;
  /** Total charged now, tax included. */
  amount_due: bigint;
  /** Days of trial this purchase starts with (0 = none); during a trial only the trial price is charged. */
  trial_days: number;
}

const AMOUNTS = ['unit_price', 'sub_total', 'discount_amount', 'tax_amount', 'amount_due'] as const;

/** The quote as JSON for the checkout row: amounts as decimal strings, so 64-bit amounts survive. */
export function storedQuote(q: Quote): Prisma.InputJsonObject {
  return { ...q, ...Object.fromEntries(AMOUNTS.map((k) => [k, q[k].toString()])) } as unknown as Prisma.InputJsonObject;
}

export function quoteFromStored(json: unknown): Quote {
  const stored = json as Record<string, unknown>;
  return { ...(stored as unknown as Quote), ...Object.fromEntries(AMOUNTS.map((k) => [k, BigInt(stored[k] as string)])) };
}

type PricedCheckout = {
  product: Pick<ProductWithRelations, 'billingType' | 'trialPeriodDays' | 'payWhatYouWant' | 'price' | 'suggestedPrice'>;
  customPrice: bigint | null;
};

/**
 * Pay what you want: the buyer picks the price (at least the product's) on the page, unless the
 * seller fixed one for this checkout or a trial starts (a trial charges the trial price).
 * `suggested` is what the field starts with.
 */
export function chosenPriceRule(c: PricedCheckout): { open: false } | { open: true; minimum: bigint; suggested: bigint } {
  const trial = c.product.billingType === 'recurring' && (c.product.trialPeriodDays ?? 0) > 0;
  if (!c.product.payWhatYouWant || c.customPrice !== null || trial) return { open: false };
  return { open: true, minimum: c.product.price, suggested: c.product.suggestedPrice ?? c.product.price };
}

/**
 * What a checkout costs for a buyer. Order of operations: price × units, minus the discount,
 * then tax on what is left (a discount lowers the taxable amount, as VAT law wants).
 * A trial charges the trial price (usually 0) without the discount: the discount is kept on
 * the subscription for its first paid period.
 */
export function quoteCheckout(args: {
  product: ProductWithRelations;
  units: number;
  customPrice: bigint | null;
  /** Pay-what-you-want amount the buyer chose on the page, per unit. */
  chosenPrice?: bigint | null;
  discount: Discount | null;
  country: string | null;
  taxId: string | null;
}): Quote {
  const { product, units } = args;
  const trialDays = product.billingType === 'recurring' ? (product.trialPeriodDays ?? 0) : 0;
  const rule = chosenPriceRule({ product, customPrice: args.customPrice });
  let unitPrice: bigint;
  if (trialDays > 0) unitPrice = product.trialPrice ?? 0n;
  else if (args.customPrice !== null) unitPrice = args.customPrice;
  else if (rule.open) unitPrice = maxOf(args.chosenPrice ?? rule.suggested, rule.minimum);
  else unitPrice = product.price;
  return { ...priceLines({ product, unitPrice, units, discount: trialDays === 0 ? args.discount : null, country: args.country, taxId: args.taxId }), trial_days: trialDays };
}

/**
 * Any invoice's lines, checkout or renewal alike: price × units, minus the discount, then tax
 * on what is left (a discount lowers the taxable amount, as VAT law wants).
 */
export function priceLines(args: {
  product: Pick<ProductWithRelations, 'currency' | 'taxMode' | 'taxCategory' | 'businessNetPricing'>;
  unitPrice: bigint;
  units: number;
  discount: Discount | null;
  country: string | null;
  taxId: string | null;
}): Omit<Quote, 'trial_days'> {
  const { product, unitPrice, units } = args;
  const subTotal = unitPrice * BigInt(units);
  const discountAmount = args.discount ? discountAmountFor(args.discount, subTotal) : 0n;
  const tax = computeTax({
    amount: subTotal - discountAmount,
    taxMode: product.taxMode,
    taxCategory: product.taxCategory,
    businessNetPricing: product.businessNetPricing,
    country: args.country,
    taxId: args.taxId,
  });
  return {
    currency: product.currency,
    unit_price: unitPrice,
    units,
    sub_total: subTotal,
    discount_amount: discountAmount,
    tax_amount: tax.tax,
    tax_rate_bp: tax.rateBp,
    tax_country: tax.country,
    tax_mode: product.taxMode,
    reverse_charge: tax.reverseCharge,
    amount_due: tax.total,
  };
}
