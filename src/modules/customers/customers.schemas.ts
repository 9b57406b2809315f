import { z } from 'zod';
import { countryCode, email, metadata } from '../../lib/schemas.js';

const externalId = z.string().trim().min(1).max(200);

export const createCustomerSchema = z.strictObject({
  email,
  name: z.string().trim().max(200).optional(),
  country: countryCode.optional(),
  metadata: metadata.optional(),
  external_id: externalId.optional(),
});

export const retrieveCustomerSchema = z
  .object({ customer_id: z.string().min(1).optional(), email: email.optional() })
  .refine((q) => q.customer_id || q.email, { message: 'send customer_id or email', path: ['customer_id'] });

export const updateCustomerSchema = z.strictObject({
  customer_id: z.string().min(1),
  name: z.string().trim().max(200).nullable().optional(),
  email: email.optional(),
  country: countryCode.nullable().optional(),
  metadata: metadata.optional(),
  external_id: externalId.nullable().optional(),
});

export const listCustomersSchema = z.object({
  page_number: z.coerce.number().int().min(1).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(50),
});
