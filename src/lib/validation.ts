import type { z } from 'zod';
import { AppError, type FieldIssue } from './errors.js';

/**
 * Parse raw input with an operation's schema. Every service entry point calls this, so
 * REST, GraphQL and the CLI share one definition of what is valid.
 */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.filter((p): p is string | number => typeof p !== 'symbol'),
    message: issue.message,
  }));
  throw new AppError('validation_failed', 'Validation failed', issues);
}
