import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLNamedType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';

/**
 * GraphiQL is the frontend developer's manual: every type, field, input field and argument says
 * what it means. A failure lists what lacks a description (`Type.field`, `Type.field(arg)`), so
 * a new field without one is named.
 */

const described = (text: string | null | undefined) => typeof text === 'string' && text.trim().length > 0;

/** Our named types: not the introspection types, not the built-in scalars. */
const ourTypes: GraphQLNamedType[] = Object.values(schema.getTypeMap())
  .filter((type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type))
  .sort((a, b) => a.name.localeCompare(b.name));

describe('schema descriptions', () => {
  it('every type has a description', () => {
    const missing = ourTypes.filter((type) => !described(type.description)).map((type) => type.name);
    expect(missing, `types without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('every field of every object type and interface has a description', () => {
    const missing = ourTypes.flatMap((type) =>
      isObjectType(type) || isInterfaceType(type)
        ? Object.values(type.getFields()).filter((field) => !described(field.description)).map((field) => `${type.name}.${field.name}`)
        : [],
    );
    expect(missing, `fields without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('every input field has a description', () => {
    const missing = ourTypes.flatMap((type) =>
      isInputObjectType(type) ? Object.values(type.getFields()).filter((field) => !described(field.description)).map((field) => `${type.name}.${field.name}`) : [],
    );
    expect(missing, `input fields without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('every argument of a root query field has a description', () => {
    const missing = Object.values(schema.getQueryType()!.getFields()).flatMap((field) =>
      field.args.filter((arg) => !described(arg.description)).map((arg) => `Query.${field.name}(${arg.name})`),
    );
    expect(missing, `Query arguments without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('every argument of every field (connections, lookups, mutations) has a description', () => {
    const missing = ourTypes.flatMap((type) =>
      isObjectType(type) || isInterfaceType(type)
        ? Object.values(type.getFields()).flatMap((field) => field.args.filter((arg) => !described(arg.description)).map((arg) => `${type.name}.${field.name}(${arg.name})`))
        : [],
    );
    expect(missing, `arguments without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('statuses with a business meaning describe their values', () => {
    const values: Record<string, string[]> = {
      SubscriptionStatus: ['trialing', 'past_due', 'unpaid', 'scheduled_cancel', 'paused'],
      TransactionStatus: ['pending', 'declined', 'partialRefund', 'chargedBack'],
      CheckoutStatus: ['processing', 'expired'],
      LicenseStatus: ['inactive', 'expired', 'disabled'],
      WebhookDeliveryStatus: ['pending', 'failed'],
      CommissionStatus: ['pending', 'approved'],
    };
    const missing = Object.entries(values).flatMap(([name, names]) => {
      const type = schema.getType(name);
      if (!isEnumType(type)) return [`${name} (not an enum of the schema)`];
      return names.filter((v) => !described(type.getValue(v)?.description)).map((v) => `${name}.${v}`);
    });
    expect(missing, `enum values without a description:\n${missing.join('\n')}`).toEqual([]);
  });
});
