import type { Customer } from '../../generated/prisma/client.js';

export function serializeCustomer(c: Customer) {
  return {
    id: c.id,
    mode: c.mode,
    object: 'customer',
    email: c.email,
    name: c.name,
    country: c.country,
    metadata: c.metadata ?? {},
    external_id: c.externalId,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
