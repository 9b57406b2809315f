import { z } from 'zod';
import type { Customer } from '../../generated/prisma/client.js';
import { isoTimestamp, metadataField, modeField } from '../../lib/response-schemas.js';

/** The /v1 CustomerEntity. */
export const customerEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('customer'),
    email: z.string(),
    name: z.string().nullable(),
    country: z.string().nullable(),
    metadata: metadataField,
    external_id: z.string().nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'CustomerEntity' });
export type CustomerEntity = z.infer<typeof customerEntity>;

export function serializeCustomer(c: Customer): CustomerEntity {
  return {
    id: c.id,
    mode: c.mode,
    object: 'customer',
    email: c.email,
    name: c.name,
    country: c.country,
    // Stored as a JSON object (the input schema takes only records).
    metadata: (c.metadata ?? {}) as CustomerEntity['metadata'],
    external_id: c.externalId,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
