import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../src/graphql/print.js';

describe('schema.graphql', () => {
  it('matches the schema the code builds (run `npm run schema:print` after changing GraphQL types)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });
});
