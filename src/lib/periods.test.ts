import { describe, expect, it } from 'vitest';
import { addInterval } from './periods.js';

describe('addInterval', () => {
  it('clamps month ends instead of overflowing into the next month', () => {
    expect(addInterval(new Date('2026-01-31T10:00:00Z'), 'month', 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addInterval(new Date('2028-01-31T10:00:00Z'), 'month', 1).toISOString()).toBe('2028-02-29T10:00:00.000Z');
    expect(addInterval(new Date('2026-03-15T00:00:00Z'), 'month', 3).toISOString()).toBe('2026-06-15T00:00:00.000Z');
    expect(addInterval(new Date('2028-02-29T00:00:00Z'), 'year', 1).toISOString()).toBe('2029-02-28T00:00:00.000Z');
  });
  it('adds days and weeks exactly', () => {
    expect(addInterval(new Date('2026-12-30T00:00:00Z'), 'day', 3).toISOString()).toBe('2027-01-02T00:00:00.000Z');
    expect(addInterval(new Date('2026-12-30T00:00:00Z'), 'week', 2).toISOString()).toBe('2027-01-13T00:00:00.000Z');
  });
});
