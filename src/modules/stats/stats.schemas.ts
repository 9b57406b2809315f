import { z } from 'zod';
import { currencyCode } from '../../lib/schemas.js';

export const STATS_INTERVALS = ['day', 'week', 'month'] as const;

const unixMs = (field: string) => z.coerce.number({ error: `must be a Unix time in milliseconds` }).int('must be whole milliseconds').min(0).max(253_402_300_799_999).transform((v) => new Date(v)).describe(field);

/** GET /v1/stats/summary: the client's query, by its own names (camelCase). */
export const statsSummarySchema = z
  .object({
    currency: currencyCode,
    startDate: unixMs('startDate').optional(),
    endDate: unixMs('endDate').optional(),
    interval: z.enum(STATS_INTERVALS).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.startDate && q.endDate && q.endDate <= q.startDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must be after startDate' });
    if (q.interval && (!q.startDate || !q.endDate)) ctx.addIssue({ code: 'custom', path: ['interval'], message: 'needs startDate and endDate' });
  });
export type StatsSummaryInput = z.output<typeof statsSummarySchema>;
