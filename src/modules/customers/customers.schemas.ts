import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { countryCode, email, metadata, resourceId } from '../../lib/schemas.js';

const externalId = z.string().trim().min(1).max(200);

export const createCustomerSchema = z.strictObject({
  email,
  name: z.string().trim().max(200).optional(),
  country: countryCode.optional(),
  metadata: metadata.optional(),
  external_id: externalId.optional(),
});
export type CreateCustomerInput = z.infer<typeof createCustomerSchema>;

/** GET /v1/customers: by id or by e-mail (one of them). */
export const retrieveCustomerSchema = z
  .object({ customer_id: resourceId.optional(), email: email.optional() })
  .refine((q) => q.customer_id || q.email, { message: 'send customer_id or email', path: ['customer_id'] });
export type RetrieveCustomerInput = z.infer<typeof retrieveCustomerSchema>;

/** PATCH: only the fields given change; null clears name, country and external_id; metadata merges. */
export const updateCustomerSchema = z.strictObject({
  customer_id: resourceId,
  name: z.string().trim().max(200).nullable().optional(),
  email: email.optional(),
  country: countryCode.nullable().optional(),
  metadata: metadata.optional(),
  external_id: externalId.nullable().optional(),
});
export type UpdateCustomerInput = z.infer<typeof updateCustomerSchema>;

export const listCustomersSchema = pageQuery(50);
