/**
 * GraphQL inputs are camelCase; the operation schemas use the /v1 (snake_case) names. This
 * converts an input object so both surfaces run through the same schemas:
 * - an explicit `null` means "not given", like an absent field;
 * - values of `metadata` and usage events' `properties` are the caller's own keys and pass through unchanged;
 * - DateTime values become ISO strings, as they are on the wire.
 */
const OPAQUE = new Set(['metadata', 'properties']);

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function toApiInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toApiInput);
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    const name = snake(k);
    out[name] = OPAQUE.has(name) ? v : toApiInput(v);
  }
  return out;
}

/** Field path of a validation issue, in the caller's camelCase names. */
export function graphqlPath(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : (i ? '.' : '') + camel(p))).join('');
}
