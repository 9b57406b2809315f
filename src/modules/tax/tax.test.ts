import { describe, expect, it } from 'vitest';
import { computeTax, normalizeTaxId, TAX_RATES } from './tax.js';

const base = { taxCategory: 'saas', businessNetPricing: false, taxId: null };

describe('tax', () => {
  it('the table says where its numbers come from and when', () => {
    expect(TAX_RATES.source.length).toBeGreaterThan(20);
    expect(TAX_RATES.as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(TAX_RATES.countries.DE?.standard_bp).toBe(1900);
  });

  it('exclusive adds the rate on top, rounding half up in integers', () => {
    expect(computeTax({ ...base, amount: 1000n, taxMode: 'exclusive', country: 'DE' })).toMatchObject({ tax: 190n, total: 1190n, rateBp: 1900 });
    // 1 cent at 19% is 0.19 -> 0; 3 cents -> 0.57 -> 1.
    expect(computeTax({ ...base, amount: 3n, taxMode: 'exclusive', country: 'DE' }).tax).toBe(1n);
  });

  it('inclusive keeps the price and takes the tax out of it', () => {
    // 11.90 incl. 19% = 10.00 net + 1.90 tax.
    expect(computeTax({ ...base, amount: 1190n, taxMode: 'inclusive', country: 'DE' })).toMatchObject({ tax: 190n, total: 1190n });
  });

  it('uses the e-book rate for ebooks', () => {
    expect(computeTax({ ...base, taxCategory: 'ebooks', amount: 1000n, taxMode: 'exclusive', country: 'DE' })).toMatchObject({ tax: 70n, rateBp: 700 });
  });

  it('charges nothing where the table has no rate', () => {
    expect(computeTax({ ...base, amount: 1000n, taxMode: 'exclusive', country: 'US' })).toMatchObject({ tax: 0n, total: 1000n, rateBp: 0 });
    expect(computeTax({ ...base, amount: 1000n, taxMode: 'exclusive', country: null })).toMatchObject({ tax: 0n, total: 1000n });
  });

  it('reverse-charges business buyers with a tax id; business_net_pricing drops an inclusive price to net', () => {
    const taxId = normalizeTaxId('DE 123.456-789');
    expect(taxId).toBe('DE123456789');
    expect(computeTax({ ...base, taxId, amount: 1000n, taxMode: 'exclusive', country: 'FR' })).toMatchObject({ tax: 0n, total: 1000n, reverseCharge: true });
    expect(computeTax({ ...base, taxId, amount: 1190n, taxMode: 'inclusive', country: 'DE' })).toMatchObject({ tax: 0n, total: 1190n, reverseCharge: true });
    expect(computeTax({ ...base, taxId, businessNetPricing: true, amount: 1190n, taxMode: 'inclusive', country: 'DE' })).toMatchObject({ tax: 0n, total: 1000n });
    // South Africa's entry does not reverse-charge: the tax id changes nothing.
    expect(computeTax({ ...base, taxId, amount: 1000n, taxMode: 'exclusive', country: 'ZA' })).toMatchObject({ tax: 150n, reverseCharge: false });
  });

  it('rejects tax ids that cannot be one', () => {
    expect(normalizeTaxId('x')).toBeNull();
    expect(normalizeTaxId('<script>')).toBeNull();
  });
});
