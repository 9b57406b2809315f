import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { email, resourceId } from '../../lib/schemas.js';

/** Input schemas of the split operations, in the /v1 field names (GraphQL goes through them too). */

export const SPLIT_TYPES = ['store', 'product'] as const;
export const RECIPIENT_TYPES = ['store', 'email'] as const;
export const MAX_RECIPIENTS = 10;

/** A share in hundredths of a percent: shares are compared and summed as integers. */
export const basisPoints = (percent: number) => Math.round(percent * 100);

const share = z
  .number({ error: 'must be a number (a percentage)' })
  .min(1, 'must be at least 1 (percent)')
  .max(100, 'must be at most 100 (percent)')
  .refine((v) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-6, 'may have at most two decimals');

const recipient = z
  .strictObject({
    recipient_type: z.enum(RECIPIENT_TYPES),
    recipient_reference: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(254, 'must be at most 254 characters'),
    amount: share,
  })
  .superRefine((r, ctx) => {
    if (r.recipient_type === 'email' && !email.safeParse(r.recipient_reference).success) {
      ctx.addIssue({ code: 'custom', path: ['recipient_reference'], message: 'must be a valid e-mail address for an email recipient' });
    }
    if (r.recipient_type === 'store' && !resourceId.safeParse(r.recipient_reference).success) {
      ctx.addIssue({ code: 'custom', path: ['recipient_reference'], message: 'must be a store id (sto_…) for a store recipient' });
    }
  });

export const createSplitSchema = z
  .strictObject({
    type: z.enum(SPLIT_TYPES),
    type_reference: z.string({ error: 'must be a string' }).trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
    recipients: z.array(recipient).min(1, 'must hold at least 1 recipient').max(MAX_RECIPIENTS, `must hold at most ${MAX_RECIPIENTS} recipients`),
    description: z.string().trim().max(500, 'must be at most 500 characters').nullish(),
  })
  .superRefine((v, ctx) => {
    const total = v.recipients.reduce((sum, r) => sum + basisPoints(r.amount), 0);
    if (total > 100_00) ctx.addIssue({ code: 'custom', path: ['recipients'], message: `shares must sum to at most 100 (they sum to ${total / 100})` });
    const seen = new Map<string, number>();
    v.recipients.forEach((r, i) => {
      const key = `${r.recipient_type}:${r.recipient_type === 'email' ? r.recipient_reference.toLowerCase() : r.recipient_reference}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['recipients', i, 'recipient_reference'], message: `names the same recipient as recipients[${seen.get(key)}]` });
      else seen.set(key, i);
    });
  });
export type CreateSplitInput = z.output<typeof createSplitSchema>;

export const splitIdSchema = z.object({ id: resourceId });
export type SplitIdInput = z.output<typeof splitIdSchema>;

export const listSplitsSchema = pageQuery(10);
export type ListSplitsInput = z.output<typeof listSplitsSchema>;
