/**
 * Money arithmetic. Amounts are bigint minor units of their currency (1999n = 19.99 EUR), so
 * no amount is ever a float and nothing overflows before 2^63. Every division rounds by one
 * rule, half away from zero, and every split of an amount (revenue splits, prorations,
 * refunds of allocations) goes through `allocate`, whose parts always add up to the whole.
 * Prices below one minor unit (usage prices such as 0.002 per token) are exact decimals.
 */

/** The largest amount the REST API carries as a JSON number (2^53 - 1). */
export const MAX_WIRE_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

const abs = (n: bigint) => (n < 0n ? -n : n);

/** n / d rounded half away from zero: 5 / 2 = 3, -5 / 2 = -3, 4 / 3 = 1. */
export function divRound(n: bigint, d: bigint): bigint {
  if (d === 0n) throw new RangeError('division by zero');
  const negative = n < 0n !== d < 0n;
  const q = (2n * abs(n) + abs(d)) / (2n * abs(d));
  return negative ? -q : q;
}

/** amount × numerator / denominator, rounded once. */
export function mulDiv(amount: bigint, numerator: bigint, denominator: bigint): bigint {
  return divRound(amount * numerator, denominator);
}

/** `percent` whole percent of `amount` (25 -> a quarter). */
export function percentOf(amount: bigint, percent: bigint | number): bigint {
  return mulDiv(amount, BigInt(percent), 100n);
}

/** `bp` basis points (hundredths of a percent) of `amount`: tax rates are kept in basis points. */
export function basisPointsOf(amount: bigint, bp: bigint | number): bigint {
  return mulDiv(amount, BigInt(bp), 10_000n);
}

export function sum(values: Iterable<bigint>): bigint {
  let total = 0n;
  for (const v of values) total += v;
  return total;
}

export const minOf = (a: bigint, b: bigint) => (a < b ? a : b);
export const maxOf = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Splits `total` in proportion to `weights` by the largest-remainder method: each part gets
 * the floor of its exact share, and the units left over go one each to the parts with the
 * largest remainders (ties: the earlier part). The parts add up to `total` exactly, and each
 * differs from its exact share by less than one unit. A negative total is split like its
 * magnitude and negated, so a refund reverses an allocation part by part.
 */
export function allocate(total: bigint, weights: readonly bigint[]): bigint[] {
  if (weights.length === 0) throw new RangeError('allocate needs at least one weight');
  if (weights.some((w) => w < 0n)) throw new RangeError('weights must not be negative');
  const weightSum = sum(weights);
  if (weightSum === 0n) throw new RangeError('weights must not all be zero');
  if (total < 0n) return allocate(-total, weights).map((p) => -p);
  const parts = weights.map((w) => (total * w) / weightSum);
  let left = total - sum(parts);
  const byRemainder = weights
    .map((w, i) => ({ i, remainder: (total * w) % weightSum }))
    .sort((a, b) => (a.remainder === b.remainder ? a.i - b.i : a.remainder > b.remainder ? -1 : 1));
  for (const { i } of byRemainder) {
    if (left === 0n) break;
    parts[i]! += 1n;
    left -= 1n;
  }
  return parts;
}

/** A bigint amount as a JSON number for the REST API; refuses what a double cannot hold exactly. */
export function toWireNumber(amount: bigint): number {
  if (abs(amount) > MAX_WIRE_AMOUNT) throw new RangeError(`amount ${amount} does not fit in a JSON number`);
  return Number(amount);
}

/** A whole number of minor units from the wire (JSON number, bigint or decimal integer string). */
export function toMinor(value: number | bigint | string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not a whole amount of minor units`);
    return BigInt(value);
  }
  if (!/^-?(0|[1-9][0-9]*)$/.test(value)) throw new RangeError(`"${value}" is not a whole amount of minor units`);
  return BigInt(value);
}

/** Minor units as a decimal string with `digits` fraction digits: 123456n, 2 -> "1234.56". */
export function toDecimalString(minor: bigint, digits: number): string {
  const sign = minor < 0n ? '-' : '';
  const a = abs(minor);
  if (digits === 0) return `${sign}${a}`;
  const scale = 10n ** BigInt(digits);
  return `${sign}${a / scale}.${String(a % scale).padStart(digits, '0')}`;
}

/**
 * An exact decimal (a usage price of 0.002 minor units per token), as coefficient × 10^-scale.
 * Parsed from its decimal text, never through a float.
 */
export interface Decimal {
  coefficient: bigint;
  scale: number;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

export function parseDecimal(text: string): Decimal {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new RangeError(`"${text}" is not a decimal number`);
  const fraction = m[3] ?? '';
  const coefficient = BigInt(`${m[2]}${fraction}`);
  return { coefficient: m[1] ? -coefficient : coefficient, scale: fraction.length };
}

export function decimalToString(d: Decimal): string {
  return toDecimalString(d.coefficient, d.scale);
}

/** quantity × price, rounded once to whole minor units (a period's usage charge). */
export function multiplyDecimal(quantity: bigint, price: Decimal): bigint {
  return divRound(quantity * price.coefficient, 10n ** BigInt(price.scale));
}

/**
 * The decimal text of a JSON number as it was written (0.002 stays "0.002"; 1e-7 becomes
 * "0.0000001"): a price that arrives as a JSON number is taken at its shortest decimal form,
 * never through float arithmetic.
 */
export function decimalTextOf(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a finite number`);
  const text = String(value);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = `${m[2]}${m[3] ?? ''}`;
  const point = m[2]!.length + Number(m[4]);
  const body = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return m[1] + body.replace(/^0+(?=\d)/, '');
}
