import type { z } from 'zod';
import { AppError, dottedPath, type FieldIssue } from './errors.js';
import { UNKNOWN_ID } from './schemas.js';
import { UNSTORABLE_TEXT_MESSAGE, unstorableTextPaths } from './text.js';

const samePath = (a: readonly PropertyKey[], b: readonly PropertyKey[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/**
 * Parse raw input with an operation's schema. Every service entry point calls this, so
 * REST, GraphQL and the CLI share one definition of what is valid.
 *
 * Text PostgreSQL cannot store (U+0000, unpaired surrogates) is refused here for every field of
 * every operation, 400 naming the field; in an id (`resourceId`) it answers 404 instead, as any
 * id that names nothing does, unless another field is wrong too.
 */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  const schemaIssues = result.success ? [] : result.error.issues;
  const unknownIds = schemaIssues.filter((i) => i.code === 'custom' && i.params?.[UNKNOWN_ID] === true);
  const issues: FieldIssue[] = schemaIssues
    .filter((i) => !unknownIds.includes(i))
    .map((issue) => ({ path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'), message: issue.message }));
  for (const path of unstorableTextPaths(raw)) {
    if (!unknownIds.some((i) => samePath(i.path, path)) && !issues.some((i) => samePath(i.path, path))) issues.push({ path, message: UNSTORABLE_TEXT_MESSAGE });
  }
  if (issues.length) throw new AppError('validation_failed', 'Validation failed', issues);
  if (unknownIds.length) throw new AppError('not_found', `No object has the ${dottedPath(unknownIds[0]!.path.filter((p): p is string | number => typeof p !== 'symbol'))} given`);
  if (!result.success) throw new Error('unreachable: a failed parse with no issues');
  return result.data;
}
