/**
 * Text PostgreSQL can store. It refuses U+0000 in `text` and `jsonb`, and an unpaired UTF-16
 * surrogate in `jsonb` (JSON.stringify escapes it as `\ud800`, which `jsonb` rejects); such a
 * string can only come from a caller, never from a stored row, so it is refused at the edge
 * instead of failing in the database.
 */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain the character U+0000 or an unpaired UTF-16 surrogate';

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** Paths of every string (object keys included: the path of their object) in a value that cannot be stored. */
export function unstorableTextPaths(value: unknown, path: (string | number)[] = [], found: (string | number)[][] = []): (string | number)[][] {
  // One path stack for the whole walk, copied only for a finding: a batch of events holds
  // hundreds of strings, and a fresh path array per value was a measurable share of ingestion.
  const stack = [...path];
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      if (!isStorableText(v)) found.push([...stack]);
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        stack.push(i);
        visit(v[i]);
        stack.pop();
      }
    } else if (v !== null && typeof v === 'object' && !(v instanceof Date)) {
      for (const k of Object.keys(v)) {
        if (!isStorableText(k)) {
          found.push([...stack]);
          continue;
        }
        stack.push(k);
        visit((v as Record<string, unknown>)[k]);
        stack.pop();
      }
    }
  };
  visit(value);
  return found;
}

/** `id`, `customer_id`, `event_id`: a field that names a stored object, which no unstorable text can name. */
export function isIdField(path: readonly (string | number)[]): boolean {
  const last = path[path.length - 1];
  return typeof last === 'string' && (last === 'id' || last.endsWith('_id'));
}
