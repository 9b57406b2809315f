/**
 * GraphQL arguments are camelCase; the operation schemas use the /v1 (snake_case) names.
 * This converts argument objects so both surfaces run through the same schemas. Values of
 * `metadata` are the caller's own keys and pass through unchanged; null stays null so
 * "clear this field" means the same on both surfaces, and absent stays absent.
 */
const OPAQUE = new Set(['metadata']);

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

export function toApiInput(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toApiInput);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const name = snake(k);
    out[name] = OPAQUE.has(name) ? v : toApiInput(v);
  }
  return out;
}

/** Field path of a validation issue, in the caller's camelCase names. */
export function graphqlPath(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : (i ? '.' : '') + camel(p))).join('');
}

/** Accepts either the /v1 id (`prod_…`) or the Relay global id of the expected type. */
export function apiIdOf(id: string, typename: string): string {
  if (/^[a-z]+_[0-9A-Z]+$/.test(id)) return id;
  const decoded = Buffer.from(id, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon > 0 && decoded.slice(0, colon) === typename) return decoded.slice(colon + 1);
  // Not an id of this type: look it up as given, which finds nothing and answers not found.
  return id;
}
