import { toDecimalString as decimal } from '../lib/money.js';

// Building an Intl.NumberFormat is costly (it showed in the checkout profile); one per currency is kept.
const formatters = new Map<string, Intl.NumberFormat | null>();

function formatterFor(currency: string): Intl.NumberFormat | null {
  let f = formatters.get(currency);
  if (f === undefined) {
    try {
      f = new Intl.NumberFormat('en', { style: 'currency', currency });
    } catch {
      f = null;
    }
    if (formatters.size < 1000) formatters.set(currency, f);
  }
  return f;
}

/** Minor-unit digits of a currency (2 for EUR, 0 for JPY), from the runtime's ICU data. */
export function fractionDigits(currency: string): number {
  return formatterFor(currency)?.resolvedOptions().maximumFractionDigits ?? 2;
}

/** The decimal string of an amount in minor units (1234 EUR -> "12.34"), built with integers only. */
export function toDecimalString(minor: bigint, currency: string): string {
  return decimal(minor, fractionDigits(currency));
}

/** For display: "€12.34". Intl formats the decimal string, so no float ever holds the amount. */
export function formatMoney(minor: bigint, currency: string): string {
  const text = toDecimalString(minor, currency);
  const f = formatterFor(currency);
  return f ? f.format(text as unknown as number) : `${text} ${currency}`;
}

/** A buyer-typed amount in major units ("12.5", "12,50") to minor units, or null if it is not one. */
export function parseMajorAmount(text: string, currency: string): bigint | null {
  const digits = fractionDigits(currency);
  const m = /^\s*(\d{1,15})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  const frac = (m[2] ?? '').padEnd(digits, '0');
  if (frac.length > digits) return null;
  return BigInt(m[1]!) * 10n ** BigInt(digits) + (digits ? BigInt(frac) : 0n);
}
