import { z } from 'zod';

/**
 * A meter's filter: clauses on the event's `properties`, combined with `and` or `or`; no
 * clauses = every event of the meter's name. Both sides are auto-parsed the same way (number,
 * then boolean, then string), so `"10"` and `10` compare equal. The filter is evaluated by the
 * database (`filterSql` in src/db/usage.ts), at ingest as in previews, through the SQL
 * functions `usage_number`, `usage_bool` and `usage_text` (migration `usage_metering_functions`).
 */
export const FILTER_OPERATORS = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'contains', 'not_contains'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];
export type FilterValue = string | number | boolean;
export interface FilterClause {
  property: string;
  operator: FilterOperator;
  value: FilterValue;
}
export interface MeterFilter {
  conjunction: 'and' | 'or';
  clauses: FilterClause[];
}

export const MATCH_ALL: MeterFilter = { conjunction: 'and', clauses: [] };
const NUMBER = /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,4})?\s*$/;

/** Whether a property value reads as a number, as the SQL function `usage_number` reads it. */
export const readsAsNumber = (v: unknown) => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && NUMBER.test(v));

/** The value as the filter compares it: a number if it reads as one, else a boolean, else the string. */
export function parseFilterValue(value: FilterValue): FilterValue {
  if (typeof value !== 'string') return value;
  if (NUMBER.test(value) && Number.isFinite(Number(value))) return Number(value);
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  return value;
}

/** An event property name: a key of the `properties` bag (at most 40 characters, as ingest allows). */
export const propertyName = z.string().trim().min(1, 'is required').max(40, 'must be at most 40 characters');

const clauseSchema = z
  .object({
    property: propertyName,
    operator: z.enum(FILTER_OPERATORS),
    value: z.union([z.string().max(500, 'must be at most 500 characters'), z.number().finite(), z.boolean()], { error: 'must be a string, a number or a boolean' }),
  })
  .transform((c) => ({ ...c, value: parseFilterValue(c.value) }))
  .superRefine((c, ctx) => {
    if (typeof c.value === 'boolean' && !['equals', 'not_equals'].includes(c.operator)) {
      ctx.addIssue({ code: 'custom', path: ['operator'], message: `${c.operator} does not apply to a boolean value; use equals or not_equals` });
    }
  });

export const meterFilterSchema = z.object({
  conjunction: z.enum(['and', 'or']).default('and'),
  clauses: z.array(clauseSchema).max(20, 'must have at most 20 clauses'),
});

/** A stored filter (the Meter row's jsonb), as the type above. */
export const storedFilter = (json: unknown): MeterFilter => (json && typeof json === 'object' && 'clauses' in json ? (json as MeterFilter) : MATCH_ALL);
