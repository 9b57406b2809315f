import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocate,
  decimalTextOf,
  basisPointsOf,
  divRound,
  MAX_WIRE_AMOUNT,
  multiplyDecimal,
  parseDecimal,
  percentOf,
  sum,
  toDecimalString,
  toMinor,
  toWireNumber,
} from './money.js';

const amount = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });
const weights = fc.array(fc.bigInt({ min: 0n, max: 10_000n }), { minLength: 1, maxLength: 12 }).filter((w) => sum(w) > 0n);

describe('divRound: one rounding rule, half away from zero', () => {
  it('rounds halves away from zero and everything else to the nearest unit', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(divRound(5n, 3n)).toBe(2n);
    expect(divRound(-5n, 3n)).toBe(-2n);
    expect(() => divRound(1n, 0n)).toThrow(RangeError);
  });

  it('is never more than half a unit from the exact quotient', () => {
    fc.assert(
      fc.property(amount, fc.bigInt({ min: 1n, max: 10n ** 6n }), (n, d) => {
        const q = divRound(n, d);
        // |n/d - q| <= 1/2  <=>  |n - q d| * 2 <= d
        const err = n - q * d;
        expect((err < 0n ? -err : err) * 2n <= d).toBe(true);
      }),
    );
  });

  it('is symmetric around zero', () => {
    fc.assert(fc.property(amount, fc.bigInt({ min: 1n, max: 10n ** 6n }), (n, d) => {
      expect(divRound(-n, d)).toBe(-divRound(n, d));
    }));
  });
});

describe('percentages and basis points', () => {
  it('takes 25% of 1999 as 500 (499.75 rounded) and 19% VAT in basis points', () => {
    expect(percentOf(1999n, 25)).toBe(500n);
    expect(basisPointsOf(10_000n, 1900)).toBe(1900n);
    expect(basisPointsOf(1n, 5000)).toBe(1n);
  });
});

describe('allocate: largest remainder', () => {
  it('splits 100 in thirds as 34, 33, 33 and keeps the sign of a refund', () => {
    expect(allocate(100n, [1n, 1n, 1n])).toEqual([34n, 33n, 33n]);
    expect(allocate(-100n, [1n, 1n, 1n])).toEqual([-34n, -33n, -33n]);
    expect(allocate(5n, [0n, 1n])).toEqual([0n, 5n]);
  });

  it('always adds up to the total exactly', () => {
    fc.assert(fc.property(amount, weights, (total, w) => {
        expect(sum(allocate(total, w))).toBe(total);
      }),
    );
  });

  it('gives every part less than one unit away from its exact share', () => {
    fc.assert(
      fc.property(amount, weights, (total, w) => {
        const parts = allocate(total, w);
        const ws = sum(w);
        parts.forEach((p, i) => {
          // |p - total*w_i/ws| < 1  <=>  |p*ws - total*w_i| < ws
          const err = p * ws - total * w[i]!;
          expect((err < 0n ? -err : err) < ws).toBe(true);
        });
      }),
    );
  });

  it('gives nothing to a zero weight and never a negative part of a positive total', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), weights, (total, w) => {
        allocate(total, w).forEach((p, i) => {
          expect(p >= 0n).toBe(true);
          if (w[i] === 0n) expect(p).toBe(0n);
        });
      }),
    );
  });

  it('refuses weights it cannot split by', () => {
    expect(() => allocate(10n, [])).toThrow(RangeError);
    expect(() => allocate(10n, [0n, 0n])).toThrow(RangeError);
    expect(() => allocate(10n, [1n, -1n])).toThrow(RangeError);
  });
});

describe('wire conversions', () => {
  it('carries amounts up to 2^53-1 as JSON numbers and refuses larger ones', () => {
    expect(toWireNumber(MAX_WIRE_AMOUNT)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toWireNumber(MAX_WIRE_AMOUNT + 1n)).toThrow(RangeError);
    expect(toMinor(1999)).toBe(1999n);
    expect(toMinor('9223372036854775807')).toBe(9_223_372_036_854_775_807n);
    expect(() => toMinor(12.5)).toThrow(RangeError);
    expect(() => toMinor('1e3')).toThrow(RangeError);
    expect(() => toMinor('+5')).toThrow(RangeError);
  });

  it('renders minor units as decimal text without floats', () => {
    expect(toDecimalString(123456n, 2)).toBe('1234.56');
    expect(toDecimalString(-5n, 2)).toBe('-0.05');
    expect(toDecimalString(500n, 0)).toBe('500');
  });
});

describe('decimal prices below one minor unit', () => {
  it('multiplies exactly and rounds once', () => {
    // 20 per million tokens = 0.00002 per token; 1,234,567 tokens -> 24.69134 -> 25
    expect(multiplyDecimal(1_234_567n, parseDecimal('0.00002'))).toBe(25n);
    expect(multiplyDecimal(3n, parseDecimal('0.5'))).toBe(2n);
    expect(multiplyDecimal(10n ** 12n, parseDecimal('0.000000000001'))).toBe(1n);
    expect(() => parseDecimal('1e-3')).toThrow(RangeError);
  });

  it('reads a JSON number as the decimal it was written as', () => {
    expect(decimalTextOf(0.002)).toBe('0.002');
    expect(decimalTextOf(1e-7)).toBe('0.0000001');
    expect(decimalTextOf(2.5e-9)).toBe('0.0000000025');
    expect(decimalTextOf(1e21)).toBe('1000000000000000000000');
    expect(decimalTextOf(12)).toBe('12');
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (n) => {
        expect(Number(decimalTextOf(n))).toBe(n);
      }),
    );
  });

  it('agrees with exact rational arithmetic', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.integer({ min: 0, max: 12 }), (q, c, scale) => {
        const price = parseDecimal(toDecimalString(c, scale));
        expect(multiplyDecimal(q, price)).toBe(divRound(q * c, 10n ** BigInt(scale)));
      }),
    );
  });
});
