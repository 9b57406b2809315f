import { z } from 'zod';
import type { Meter } from '../../generated/prisma/client.js';
import { cursorPageOf, isoTimestamp } from '../../lib/response-schemas.js';
import { FILTER_OPERATORS, storedFilter } from './meter-filter.js';
import { AGGREGATIONS } from './meters.schemas.js';
import type { MeteringPeriod } from './usage-periods.js';

export const meterFilterEntity = z
  .object({
    conjunction: z.enum(['and', 'or']),
    clauses: z.array(
      z
        .object({ property: z.string(), operator: z.enum(FILTER_OPERATORS), value: z.union([z.string(), z.number(), z.boolean()]) })
        .meta({ id: 'FilterClauseApiResponseDto' }),
    ),
  })
  .meta({ id: 'MeterFilterApiResponseDto' });

/** The /v1 MeterApiResponseDto. */
export const meterEntity = z
  .object({
    id: z.string(),
    object: z.literal('meter'),
    store_id: z.string(),
    name: z.string(),
    event_name: z.string(),
    aggregation: z.enum(AGGREGATIONS),
    // Always null for count.
    aggregation_property: z.string().nullable(),
    filter: meterFilterEntity,
    unit_label: z.string(),
    status: z.enum(['active', 'archived']),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'MeterApiResponseDto' });
export type MeterEntity = z.infer<typeof meterEntity>;

export const meterList = cursorPageOf(meterEntity).meta({ id: 'MeterListApiResponseDto' });

/** /v1 JSON of a meter, as the official client's `MeterApiResponseDto` reads it. */
export function serializeMeter(m: Meter): MeterEntity {
  return {
    id: m.id,
    object: 'meter',
    store_id: m.storeId,
    name: m.name,
    event_name: m.eventName,
    aggregation: m.aggregation as MeterEntity['aggregation'],
    aggregation_property: m.aggregation === 'count' ? null : m.aggregationProperty,
    filter: storedFilter(m.filter),
    unit_label: m.unitLabel,
    status: m.status as MeterEntity['status'],
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

/** The /v1 MeterConsumedUnitsApiResponseDto. */
export const consumedUnitsEntity = z
  .object({
    meter_id: z.string(),
    customer_id: z.string(),
    // A decimal, as text.
    units: z.string(),
    period_start: isoTimestamp,
    period_end: isoTimestamp,
    updated_at: isoTimestamp.nullable(),
    as_of: isoTimestamp.optional(),
  })
  .meta({ id: 'MeterConsumedUnitsApiResponseDto' });
export type ConsumedUnitsEntity = z.infer<typeof consumedUnitsEntity>;

export function serializeConsumedUnits(c: { meterId: string; customerId: string; units: string; period: MeteringPeriod; updatedAt: Date | null; asOf: Date | undefined }): ConsumedUnitsEntity {
  return {
    meter_id: c.meterId,
    customer_id: c.customerId,
    units: c.units,
    period_start: c.period.start.toISOString(),
    period_end: c.period.end.toISOString(),
    updated_at: c.updatedAt?.toISOString() ?? null,
    ...(c.asOf ? { as_of: c.asOf.toISOString() } : {}),
  };
}

/** The /v1 MeterPreviewApiResponseDto: what `preview` returns. */
export const meterPreviewEntity = z
  .object({
    matched_events: z.number().int(),
    // A decimal, as text.
    units: z.string(),
    distinct_customers: z.number().int(),
    // The last 7 UTC days, oldest first.
    daily: z.array(z.object({ date: z.iso.date(), event_count: z.number().int(), value: z.string() }).meta({ id: 'MeterPreviewDailyApiResponseDto' })),
    skipped_non_numeric: z.number().int(),
    scan_capped: z.boolean(),
  })
  .meta({ id: 'MeterPreviewApiResponseDto' });
