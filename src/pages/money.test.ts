import { describe, expect, it } from 'vitest';
import { formatMoney, parseMajorAmount, toDecimalString } from './money.js';

describe('money on the pages', () => {
  it('renders minor units with the currency’s own digits, without floats', () => {
    expect(toDecimalString(123456, 'EUR')).toBe('1234.56');
    expect(toDecimalString(5, 'EUR')).toBe('0.05');
    expect(toDecimalString(500, 'JPY')).toBe('500');
    expect(formatMoney(123456, 'EUR')).toBe('€1,234.56');
    expect(formatMoney(99_999_999, 'USD')).toBe('$999,999.99');
  });
  it('reads what a buyer types as a price', () => {
    expect(parseMajorAmount('12,5', 'EUR')).toBe(1250);
    expect(parseMajorAmount(' 7 ', 'EUR')).toBe(700);
    expect(parseMajorAmount('1500', 'JPY')).toBe(1500);
    expect(parseMajorAmount('12.345', 'EUR')).toBeNull();
    expect(parseMajorAmount('1e3', 'EUR')).toBeNull();
    expect(parseMajorAmount('-5', 'EUR')).toBeNull();
  });
});
