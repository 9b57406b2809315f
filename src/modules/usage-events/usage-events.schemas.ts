import { z } from 'zod';
import { isoDateTime, resourceId } from '../../lib/schemas.js';
import { eventName } from '../meters/meters.schemas.js';

/** At most this many events per ingest or preview request. */
export const MAX_BATCH = 100;

const customerRef = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'is required')
  .max(255, 'must be at most 255 characters')
  .regex(/^[A-Za-z0-9_-]+$/, 'may hold only letters, digits, _ and -');

const MAX_VALUE = 500;
/** The one bag of attributes: at most 50 keys of at most 40 characters; strings and serialized objects at most 500 characters. */
// A check, not z.record: a record schema copies every bag key by key, and a batch holds a hundred bags.
const isBag = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const properties = z.custom<Record<string, unknown>>(isBag, { error: 'must be an object' }).superRefine((bag, ctx) => {
  const keys = Object.keys(bag);
  if (keys.length > 50) ctx.addIssue({ code: 'custom', message: `must have at most 50 keys (has ${keys.length})` });
  for (const key of keys) {
    const value = bag[key];
    if (key.length === 0 || key.length > 40) ctx.addIssue({ code: 'custom', path: [key], message: 'keys must be 1 to 40 characters' });
    else if (typeof value === 'string' && value.length > MAX_VALUE) ctx.addIssue({ code: 'custom', path: [key], message: `must be at most ${MAX_VALUE} characters` });
    else if (value !== null && typeof value === 'object' && JSON.stringify(value).length > MAX_VALUE) ctx.addIssue({ code: 'custom', path: [key], message: `must serialize to at most ${MAX_VALUE} characters` });
    else if (typeof value === 'number' && !Number.isFinite(value)) ctx.addIssue({ code: 'custom', path: [key], message: 'must be a finite number' });
  }
});

/** One usage event as sent; exactly one of `customer_id` and `external_customer_id`. */
export const usageEventSchema = z
  .object({
    name: eventName,
    customer_id: customerRef.optional(),
    external_customer_id: customerRef.optional(),
    // Stored trimmed; all whitespace is refused rather than replaced with a generated id.
    event_id: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty or only whitespace').max(255, 'must be at most 255 characters').optional(),
    timestamp: isoDateTime.optional(),
    properties: properties.default({}),
  })
  .superRefine((e, ctx) => {
    if ((e.customer_id === undefined) === (e.external_customer_id === undefined)) {
      ctx.addIssue({ code: 'custom', path: [e.customer_id === undefined ? 'customer_id' : 'external_customer_id'], message: 'exactly one of customer_id and external_customer_id is required' });
    }
  });
export type UsageEventInput = z.output<typeof usageEventSchema>;

/** The batch's shape; each event is validated on its own (`usageEventSchema`), so a preview can report them one by one. */
export const batchSchema = z.object({
  events: z.array(z.unknown()).min(1, 'must hold at least 1 event').max(MAX_BATCH, `must hold at most ${MAX_BATCH} events`),
});
export type BatchInput = z.output<typeof batchSchema>;

export const listUsageEventsSchema = z.object({
  meter_id: resourceId.optional(),
  customer_id: resourceId.optional(),
  reference: z.string().trim().min(1).max(255).optional(),
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(10),
  starting_after: resourceId.optional(),
});
export type ListUsageEventsInput = z.output<typeof listUsageEventsSchema>;
