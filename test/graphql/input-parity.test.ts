import { GraphQLInputObjectType } from 'graphql';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { OPERATION_MUTATIONS } from '../../src/graphql/mutation.js';
import { schema } from '../../src/graphql/schema.js';

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The top-level fields an operation's input schema accepts (what REST's body or query can carry). */
function inputFields(op: (typeof OPERATION_MUTATIONS)[number]['op']): string[] {
  const json = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown> };
  return Object.keys(json.properties ?? {});
}

describe('GraphQL mutations take what their operations take', () => {
  it('every field of an operation’s input is a field of its mutation’s input (camelCase), and nothing else', () => {
    // /v1 fields with a reason not to be in GraphQL.
    const restOnly: Record<string, string> = { custom_field: 'the deprecated /v1 twin of custom_fields; GraphQL has customFields only' };
    const problems: string[] = [];
    expect(OPERATION_MUTATIONS.length).toBeGreaterThan(40);
    for (const m of OPERATION_MUTATIONS) {
      const type = schema.getType(m.input);
      expect(type, m.input).toBeInstanceOf(GraphQLInputObjectType);
      const graphqlFields = new Set(Object.keys((type as GraphQLInputObjectType).getFields()));
      const expected = inputFields(m.op)
        .filter((f) => !(f in restOnly))
        .map((f) => m.fieldNames[f] ?? camel(f));
      for (const f of expected) if (!graphqlFields.has(f)) problems.push(`${m.name}: ${m.input} lacks ${f} (${m.op.name} takes it)`);
      for (const f of graphqlFields) if (!expected.includes(f)) problems.push(`${m.name}: ${m.input}.${f} is not an input of ${m.op.name}`);
    }
    expect(problems).toEqual([]);
  });
});
