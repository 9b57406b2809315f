import { describe, expect, it } from 'vitest';
import { formatMoney, parseMajorAmount, toDecimalString } from './money.js';

describe('money on the pages', () => {
  it('renders minor units with the currency’s own digits, without floats', () => {
    expect(toDecimalString(123456n, 'EUR')).toBe('1234.56');
    expect(toDecimalString(5n, 'EUR')).toBe('0.05');
    expect(toDecimalString(500n, 'JPY')).toBe('500');
    expect(formatMoney(123456n, 'EUR')).toBe('€1,234.56');
    expect(formatMoney(99_999_999n, 'USD')).toBe('$999,999.99');
    // Beyond what a double holds exactly, the digits stay exact.
    expect(formatMoney(9_007_199_254_740_993n, 'USD')).toBe('$90,071,992,547,409.93');
  });
  it('reads what a buyer types as a price', () => {
    expect(parseMajorAmount('12,5', 'EUR')).toBe(1250n);
    expect(parseMajorAmount(' 7 ', 'EUR')).toBe(700n);
    expect(parseMajorAmount('1500', 'JPY')).toBe(1500n);
    expect(parseMajorAmount('12.345', 'EUR')).toBeNull();
    expect(parseMajorAmount('1e3', 'EUR')).toBeNull();
    expect(parseMajorAmount('-5', 'EUR')).toBeNull();
  });
});
