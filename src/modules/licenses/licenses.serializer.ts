import type { License, LicenseInstance } from '../../generated/prisma/client.js';
import { licenseWireStatus } from './licenses.rules.js';

export function serializeLicenseInstance(i: LicenseInstance) {
  return {
    id: i.id,
    mode: i.mode,
    object: 'license-instance',
    name: i.name,
    status: i.status as 'active' | 'deactivated',
    created_at: i.createdAt.toISOString(),
  };
}

/**
 * The /v1 LicenseEntity. `instance` is the one the operation acted on (activate/validate/
 * deactivate); without it, the first of `instances` if the caller loaded them (ordered as it
 * wants), else null.
 */
export function serializeLicense(l: License & { instances?: LicenseInstance[] }, now: Date, instance?: LicenseInstance | null) {
  const shown = instance !== undefined ? instance : (l.instances?.[0] ?? null);
  return {
    id: l.id,
    mode: l.mode,
    object: 'license',
    product_id: l.productId,
    status: licenseWireStatus(l, now),
    key: l.key,
    activation: l.activationCount,
    activation_limit: l.activationLimit,
    expires_at: l.expiresAt ? l.expiresAt.toISOString() : null,
    created_at: l.createdAt.toISOString(),
    instance: shown ? serializeLicenseInstance(shown) : null,
  };
}
