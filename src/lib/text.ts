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
  if (typeof value === 'string') {
    if (!isStorableText(value)) found.push(path);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => unstorableTextPaths(v, [...path, i], found));
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value)) {
      if (!isStorableText(k)) found.push(path);
      else unstorableTextPaths(v, [...path, k], found);
    }
  }
  return found;
}

/** `id`, `customer_id`, `event_id`: a field that names a stored object, which no unstorable text can name. */
export function isIdField(path: readonly (string | number)[]): boolean {
  const last = path[path.length - 1];
  return typeof last === 'string' && (last === 'id' || last.endsWith('_id'));
}
