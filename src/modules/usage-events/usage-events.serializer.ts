import { z } from 'zod';
import { cursorPageOf, isoTimestamp } from '../../lib/response-schemas.js';
import type { ListedUsageEvent, WarningCode } from './usage-events.service.js';

/** The /v1 UsageEventApiResponseDto. */
export const usageEventEntity = z
  .object({
    id: z.string(),
    object: z.literal('usage_event'),
    customer_id: z.string(),
    event_id: z.string(),
    name: z.string(),
    properties: z.record(z.string(), z.unknown()),
    timestamp: isoTimestamp,
    created_at: isoTimestamp,
    // The active meters of the event's name.
    matched_meters: z.array(z.string()),
  })
  .meta({ id: 'UsageEventApiResponseDto' });
export type UsageEventEntity = z.infer<typeof usageEventEntity>;

export const usageEventList = cursorPageOf(usageEventEntity).meta({ id: 'UsageEventListApiResponseDto' });

/** /v1 JSON of a usage event, as the client's `UsageEventApiResponseDto` reads it. */
export function serializeUsageEvent({ event: e, matched }: ListedUsageEvent): UsageEventEntity {
  return {
    id: e.id,
    object: 'usage_event',
    customer_id: e.customerId,
    event_id: e.idempotencyKey,
    name: e.eventName,
    properties: e.properties as UsageEventEntity['properties'],
    timestamp: e.timestamp.toISOString(),
    created_at: e.createdAt.toISOString(),
    matched_meters: matched,
  };
}

export const INGEST_WARNING_CODES = ['no_matching_meter', 'meter_archived', 'timestamp_outside_late_window'] as const satisfies readonly WarningCode[];

/** The /v1 IngestUsageEventsApiResponseDto: what `ingest` returns. */
export const ingestReport = z
  .object({
    accepted: z.number().int(),
    // Per entry of the batch, in order: the id it is stored under.
    event_ids: z.array(z.string()),
    warnings: z
      .array(z.object({ index: z.number().int(), code: z.enum(INGEST_WARNING_CODES), message: z.string() }).meta({ id: 'IngestUsageEventWarningApiDto' }))
      .optional(),
    // Extension: events whose aggregation property a numeric meter could not read as a number.
    value_warnings: z.array(z.object({ index: z.number().int(), meter_id: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'IngestUsageEventsApiResponseDto' });

/** The /v1 PreviewUsageEventsApiResponseDto: what `previewIngest` returns. */
export const previewReport = z
  .object({
    valid: z.boolean(),
    events: z.array(
      z
        .object({
          valid: z.boolean(),
          event_id: z.string().nullable(),
          customer_id: z.string().nullable(),
          error: z.object({ code: z.string(), message: z.string(), param: z.string() }).nullable(),
          duplicate: z.boolean().nullable(),
          matched_meters: z.array(z.string()),
          warnings: z.array(z.object({ code: z.enum(INGEST_WARNING_CODES), message: z.string() }).meta({ id: 'PreviewUsageEventWarningApiDto' })),
        })
        .meta({ id: 'PreviewUsageEventReportApiDto' }),
    ),
  })
  .meta({ id: 'PreviewUsageEventsApiResponseDto' });
