import type { Discount } from '../../generated/prisma/client.js';
import type { ProductWithRelations } from '../products/products.service.js';
import { discountAmountFor } from '../discounts/discounts.service.js';
import { computeTax, type TaxMode } from '../tax/tax.js';

/** Everything the buyer is charged, in minor units; stored on the checkout when payment starts. */
export interface Quote {
  currency: string;
  unit_price: number;
  units: number;
  sub_total: number;
  discount_amount: number;
  tax_amount: number;
  tax_rate_bp: number;
  tax_country: string | null;
  tax_mode: TaxMode;
  reverse_charge: boolean;
  /** Total charged now, tax included. */
  amount_due: number;
  /** Days of trial this purchase starts with (0 = none); during a trial only the trial price is charged. */
  trial_days: number;
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
  customPrice: number | null;
  /** Pay-what-you-want amount the buyer chose on the page, per unit. */
  chosenPrice?: number | null;
  discount: Discount | null;
  country: string | null;
  taxId: string | null;
}): Quote {
  const { product, units } = args;
  const trialDays = product.billingType === 'recurring' ? (product.trialPeriodDays ?? 0) : 0;
  let unitPrice: number;
  if (trialDays > 0) unitPrice = product.trialPrice ?? 0;
  else if (args.customPrice !== null) unitPrice = args.customPrice;
  else if (product.payWhatYouWant) unitPrice = Math.max(product.price, args.chosenPrice ?? product.suggestedPrice ?? product.price);
  else unitPrice = product.price;
  const subTotal = unitPrice * units;
  const discountAmount = args.discount && trialDays === 0 ? discountAmountFor(args.discount, subTotal) : 0;
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
    trial_days: trialDays,
  };
}
