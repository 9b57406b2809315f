import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';

const key = z.string().trim().min(1).max(100);
const instanceId = z.string().trim().min(1).max(100);

export const activateLicenseSchema = z.strictObject({
  key,
  instance_name: z.string().trim().min(1).max(200),
});

export const validateLicenseSchema = z.strictObject({ key, instance_id: instanceId });

export const deactivateLicenseSchema = z.strictObject({ key, instance_id: instanceId });

export const listLicenseInstancesSchema = pageQuery(50).extend({ id: z.string().min(1) });

export const listCustomerLicensesSchema = pageQuery(50).extend({ id: z.string().min(1) });
