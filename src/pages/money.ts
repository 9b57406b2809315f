/** Minor-unit digits of a currency (2 for EUR, 0 for JPY), from the runtime's ICU data. */
export function fractionDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** The decimal string of an amount in minor units, built with integers only (1234 EUR -> "12.34"). */
export function toDecimalString(minor: number, currency: string): string {
  const digits = fractionDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const scale = 10 ** digits;
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, '0')}`;
}

/** For display: "€12.34". Intl formats the decimal string, so no float ever holds the amount. */
export function formatMoney(minor: number, currency: string): string {
  const decimal = toDecimalString(minor, currency);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(decimal as unknown as number);
  } catch {
    return `${decimal} ${currency}`;
  }
}

/** A buyer-typed amount in major units ("12.5", "12,50") to minor units, or null if it is not one. */
export function parseMajorAmount(text: string, currency: string): number | null {
  const digits = fractionDigits(currency);
  const m = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  const frac = (m[2] ?? '').padEnd(digits, '0');
  if (frac.length > digits) return null;
  return Number(m[1]) * 10 ** digits + (digits ? Number(frac) : 0);
}
