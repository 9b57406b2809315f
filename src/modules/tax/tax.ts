import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { basisPointsOf, mulDiv } from '../../lib/money.js';

const rateTable = z.object({
  source: z.string().min(1),
  as_of: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  countries: z.record(
    z.string().regex(/^[A-Z]{2}$/),
    z.object({ standard_bp: z.number().int().min(0).max(10000), ebooks_bp: z.number().int().min(0).max(10000), reverse_charge: z.boolean() }),
  ),
});

/** The rates table, validated when the service starts so a bad edit fails loudly instead of mis-charging. */
export const TAX_RATES = rateTable.parse(JSON.parse(readFileSync(new URL('./tax-rates.json', import.meta.url), 'utf8')));

export type TaxMode = 'inclusive' | 'exclusive';

export interface TaxResult {
  /** What the buyer pays for `amount`, tax included. */
  total: bigint;
  tax: bigint;
  rateBp: number;
  country: string | null;
  reverseCharge: boolean;
}


/**
 * Normalised buyer tax id (VAT number, ABN, ...): spaces, dots and dashes removed, uppercased.
 * Only the format is checked; there is no registry lookup (VIES and the like), so a seller
 * who must verify ids has to do it from the order data.
 */
export function normalizeTaxId(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const id = raw.replace(/[\s.\-]/g, '').toUpperCase();
  return /^[A-Z0-9]{4,20}$/.test(id) ? id : null;
}

/**
 * Tax on `amount` (minor units, after discount) for a buyer in `country`.
 * inclusive: the price already contains the tax, so the buyer pays `amount` and the tax is
 * the part of it above the net price; exclusive: tax is added on top.
 * Reverse charge (the table says so for the country and the buyer gave a tax id): no tax is
 * charged; with `businessNetPricing` an inclusive price drops to its net for such buyers.
 */
export function computeTax(args: {
  amount: bigint;
  taxMode: TaxMode;
  taxCategory: string;
  businessNetPricing: boolean;
  country: string | null;
  taxId: string | null;
}): TaxResult {
  const entry = args.country ? TAX_RATES.countries[args.country] : undefined;
  if (!entry) return { total: args.amount, tax: 0n, rateBp: 0, country: args.country, reverseCharge: false };
  const rateBp = args.taxCategory === 'ebooks' ? entry.ebooks_bp : entry.standard_bp;
  const reverseCharge = entry.reverse_charge && args.taxId !== null && rateBp > 0;
  const net = args.taxMode === 'inclusive' ? mulDiv(args.amount, 10_000n, BigInt(10_000 + rateBp)) : args.amount;
  if (reverseCharge) {
    const total = args.taxMode === 'inclusive' && !args.businessNetPricing ? args.amount : net;
    return { total, tax: 0n, rateBp, country: args.country, reverseCharge: true };
  }
  if (args.taxMode === 'inclusive') return { total: args.amount, tax: args.amount - net, rateBp, country: args.country, reverseCharge: false };
  const tax = basisPointsOf(args.amount, rateBp);
  return { total: args.amount + tax, tax, rateBp, country: args.country, reverseCharge: false };
}
