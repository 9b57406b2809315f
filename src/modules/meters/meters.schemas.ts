import { z } from 'zod';
import { cursorQuery } from '../../lib/pagination.js';
import { isoDateTime, requiredText, resourceId } from '../../lib/schemas.js';
import { meterFilterSchema, propertyName } from './meter-filter.js';

export const AGGREGATIONS = ['count', 'sum', 'average', 'min', 'max', 'unique'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

const text = requiredText;

/** A usage event name, as events carry it and meters consume it. */
export const eventName = text(100);

/** `aggregation_property` is required for every aggregation but `count`, which ignores it. */
function requireProperty<T extends { aggregation: Aggregation; aggregation_property?: string | null }>(d: T, ctx: z.RefinementCtx) {
  if (d.aggregation !== 'count' && !d.aggregation_property) {
    ctx.addIssue({ code: 'custom', path: ['aggregation_property'], message: `is required for the ${d.aggregation} aggregation (only count goes without)` });
  }
}

const definition = {
  event_name: eventName,
  aggregation: z.enum(AGGREGATIONS),
  aggregation_property: propertyName.optional(),
  filter: meterFilterSchema.optional(),
};

export const createMeterSchema = z.object({ name: text(100), ...definition, unit_label: text(50) }).superRefine(requireProperty);
export type CreateMeterInput = z.output<typeof createMeterSchema>;

/** A candidate definition, dry-run by the preview; `unit_label` is cosmetic there. */
export const previewMeterSchema = z.object({ ...definition, unit_label: text(50).default('units') }).superRefine(requireProperty);
export type PreviewMeterInput = z.output<typeof previewMeterSchema>;

export const updateMeterSchema = z.object({
  id: resourceId,
  name: text(100).optional(),
  aggregation: z.enum(AGGREGATIONS).optional(),
  // null clears it (only valid when the resulting aggregation is count); absent leaves it.
  aggregation_property: propertyName.nullable().optional(),
  filter: meterFilterSchema.optional(),
});
export type UpdateMeterInput = z.output<typeof updateMeterSchema>;

export const meterIdSchema = z.object({ id: resourceId });

export const listMetersSchema = z.object({
  ...cursorQuery,
  include_archived: z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true').default(false),
});
export type ListMetersInput = z.output<typeof listMetersSchema>;

export const consumedUnitsSchema = z.object({ id: resourceId, customer_id: resourceId, at: isoDateTime.optional() });
export type ConsumedUnitsInput = z.output<typeof consumedUnitsSchema>;
