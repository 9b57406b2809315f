import { z } from 'zod';
import type { License, LicenseInstance } from '../../generated/prisma/client.js';
import { isoTimestamp, modeField } from '../../lib/response-schemas.js';
import { licenseWireStatus } from './licenses.rules.js';
import { LICENSE_INSTANCE_STATUSES, LICENSE_STATUSES } from './licenses.schemas.js';

/** The /v1 LicenseInstanceEntity. */
export const licenseInstanceEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('license-instance'),
    name: z.string(),
    status: z.enum(LICENSE_INSTANCE_STATUSES),
    created_at: isoTimestamp,
  })
  .meta({ id: 'LicenseInstanceEntity' });
export type LicenseInstanceEntity = z.infer<typeof licenseInstanceEntity>;

/** The /v1 LicenseEntity. */
export const licenseEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('license'),
    product_id: z.string(),
    status: z.enum(LICENSE_STATUSES),
    key: z.string(),
    activation: z.number().int().meta({ description: 'Instances activated so far' }),
    activation_limit: z.number().int().nullable(),
    expires_at: isoTimestamp.nullable(),
    created_at: isoTimestamp,
    instance: licenseInstanceEntity.nullable(),
  })
  .meta({ id: 'LicenseEntity' });
export type LicenseEntity = z.infer<typeof licenseEntity>;

export function serializeLicenseInstance(i: LicenseInstance): LicenseInstanceEntity {
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
export function serializeLicense(l: License & { instances?: LicenseInstance[] }, now: Date, instance?: LicenseInstance | null): LicenseEntity {
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
