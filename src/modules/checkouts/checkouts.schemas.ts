import { z } from 'zod';
import { email, httpUrl, metadata, minorUnits, resourceId } from '../../lib/schemas.js';
import { customFields } from '../products/products.schemas.js';

export const MAX_UNITS = 10_000;

export const createCheckoutSchema = z.strictObject({
  request_id: z.string().trim().min(1).max(200).optional(),
  product_id: resourceId,
  units: z.number().int('must be a whole number').min(1, 'must be at least 1').max(MAX_UNITS).optional(),
  // Per-unit price override; one whole currency unit is the floor, as in the official client's docs.
  custom_price: minorUnits.refine((p) => p >= 100n, 'must be at least 100').optional(),
  discount_code: z.string().trim().min(1).max(64).optional(),
  affiliate_code: z.string().trim().min(1).max(64).optional(),
  customer: z
    .strictObject({ id: resourceId.optional(), email: email.optional(), name: z.string().trim().max(200).optional() })
    .optional(),
  custom_fields: customFields.optional(),
  custom_field: customFields.optional(),
  success_url: httpUrl.optional(),
  metadata: metadata.optional(),
});
export type CreateCheckoutInput = z.infer<typeof createCheckoutSchema>;

export const retrieveCheckoutSchema = z.object({ checkout_id: resourceId });
export type RetrieveCheckoutInput = z.infer<typeof retrieveCheckoutSchema>;

/** Luhn check: catches typos in a card number before anything reaches a processor. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const cardNumber = z
  .string()
  .transform((v) => v.replace(/[\s-]/g, ''))
  .pipe(z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits').refine(luhnValid, 'is not a valid card number'));

/** MM/YY or MM/YYYY. */
export const cardExpiry = z
  .string()
  .trim()
  .regex(/^(0[1-9]|1[0-2])\s*\/\s*(\d{2}|\d{4})$/, 'must be MM/YY')
  .transform((v) => {
    const [m, y] = v.split('/').map((s) => s.trim());
    const year = Number(y);
    return { month: Number(m), year: year < 100 ? 2000 + year : year };
  });

/**
 * What the buyer submits on the hosted page (also the `payCheckout` GraphQL/test path).
 * Custom field values are checked against the checkout's field definitions by the service.
 */
export const payCheckoutSchema = z.object({
  email,
  name: z.string().trim().min(1, 'is required').max(200),
  country: z.string().regex(/^[A-Z]{2}$/, 'choose a country'),
  tax_id: z.string().trim().max(40).optional(),
  card_number: cardNumber,
  card_expiry: cardExpiry,
  card_cvc: z.string().trim().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  /** Pay-what-you-want amount chosen on the page, minor units. */
  amount: minorUnits.optional(),
  custom_fields: z.record(z.string(), z.union([z.string().max(2000), z.boolean()])).default({}),
  /** The total the page showed; if the server's differs (the country changed it) nothing is charged. */
  expected_total: minorUnits.optional(),
});
export type PayCheckoutInput = z.infer<typeof payCheckoutSchema>;
