import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { email, requiredText, resourceId } from '../../lib/schemas.js';

/** Input schemas of the affiliate operations, in the /v1 field names (GraphQL goes through them too). */

export const COMMISSION_STATUSES = ['pending', 'approved', 'paid'] as const;
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];

export const createAffiliateInviteSchema = z.strictObject({
  email,
  name: requiredText(200),
  // Optional: the store has one program per environment, and an omitted id means that one.
  program_id: resourceId.nullish(),
});
export type CreateAffiliateInviteInput = z.output<typeof createAffiliateInviteSchema>;

export const listAffiliatesSchema = pageQuery(10);
export type ListAffiliatesInput = z.output<typeof listAffiliatesSchema>;

export const affiliateIdSchema = z.object({ id: resourceId });
export type AffiliateIdInput = z.output<typeof affiliateIdSchema>;

export const listCommissionsSchema = pageQuery(10).extend({ id: resourceId, status: z.enum(COMMISSION_STATUSES).optional() });
export type ListCommissionsInput = z.output<typeof listCommissionsSchema>;

/** A percentage with at most two decimals, kept as basis points. */
const percent = z
  .number({ error: 'must be a number (a percentage)' })
  .min(0, 'must be at least 0 (percent)')
  .max(100, 'must be at most 100 (percent)')
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, 'may have at most two decimals');

export const updateAffiliateProgramSchema = z
  .strictObject({
    commission_percent: percent.optional(),
    hold_days: z.number({ error: 'must be a whole number of days' }).int('must be a whole number of days').min(0).max(365).optional(),
    cookie_days: z.number({ error: 'must be a whole number of days' }).int('must be a whole number of days').min(1).max(365).optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { message: 'give at least one of commission_percent, hold_days, cookie_days' });
export type UpdateAffiliateProgramInput = z.output<typeof updateAffiliateProgramSchema>;

export const noInputSchema = z.strictObject({});
