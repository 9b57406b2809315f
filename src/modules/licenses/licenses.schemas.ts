import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { resourceId } from '../../lib/schemas.js';

/** Input schemas of the license operations, in the /v1 field names (GraphQL converts to them). */

/** Status as the buyer's software sees it (see `licenseWireStatus`). */
export const LICENSE_STATUSES = ['inactive', 'active', 'expired', 'disabled'] as const;
export type LicenseWireStatus = (typeof LICENSE_STATUSES)[number];

export const LICENSE_INSTANCE_STATUSES = ['active', 'deactivated'] as const;

const key = z.string().trim().min(1).max(100);

export const activateLicenseSchema = z.strictObject({
  key,
  instance_name: z.string().trim().min(1).max(200),
});
export type ActivateLicenseInput = z.output<typeof activateLicenseSchema>;

export const validateLicenseSchema = z.strictObject({ key, instance_id: resourceId });
export type ValidateLicenseInput = z.output<typeof validateLicenseSchema>;

export const deactivateLicenseSchema = z.strictObject({ key, instance_id: resourceId });
export type DeactivateLicenseInput = z.output<typeof deactivateLicenseSchema>;

/** GET /v1/licenses/{id}/instances. */
export const listLicenseInstancesSchema = pageQuery(50).extend({ id: resourceId });
export type ListLicenseInstancesInput = z.output<typeof listLicenseInstancesSchema>;

/** GET /v1/customers/{id}/licenses. */
export const listCustomerLicensesSchema = pageQuery(50).extend({ id: resourceId });
export type ListCustomerLicensesInput = z.output<typeof listCustomerLicensesSchema>;
