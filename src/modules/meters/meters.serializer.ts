import type { Meter } from '../../generated/prisma/client.js';
import { storedFilter } from './meter-filter.js';
import type { MeteringPeriod } from './usage-periods.js';

/** /v1 JSON of a meter, as the official client's `MeterApiResponseDto` reads it. */
export function serializeMeter(m: Meter) {
  return {
    id: m.id,
    object: 'meter',
    store_id: m.storeId,
    name: m.name,
    event_name: m.eventName,
    aggregation: m.aggregation,
    aggregation_property: m.aggregation === 'count' ? null : m.aggregationProperty,
    filter: storedFilter(m.filter),
    unit_label: m.unitLabel,
    status: m.status,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

export function serializeConsumedUnits(c: { meterId: string; customerId: string; units: string; period: MeteringPeriod; updatedAt: Date | null; asOf: Date | undefined }) {
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
