import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin, { resolveNodes } from '@pothos/plugin-relay';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import {
  CurrencyResolver,
  DateTimeResolver,
  EmailAddressResolver,
  JSONResolver,
  NonNegativeIntResolver,
  PositiveIntResolver,
} from 'graphql-scalars';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { PrismaClient } from '../generated/prisma/client.js';
import { db } from '../db/tenant.js';
import type { GraphQLContext } from './context.js';
import { decodeId, NODE_TYPES } from './global-id.js';
import { DEFAULT_PAGE, fieldCost, MAX_PAGE } from './limits.js';

/** The schema builder: plugins and scalars only. Types live in each module's *.graphql.ts. */
export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    JSON: { Input: unknown; Output: unknown };
    Currency: { Input: string; Output: string };
    EmailAddress: { Input: string; Output: string };
    PositiveInt: { Input: number; Output: number };
    NonNegativeInt: { Input: number; Output: number };
    MinorUnits: { Input: bigint; Output: bigint | number };
    Decimal: { Input: string; Output: string };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  // Costs only: the limits are checked before execution, in src/graphql/limits.ts.
  complexity: { fieldComplexity: fieldCost as never },
  prisma: {
    // The plugin loads relations through the caller's tenant-bound client, never the raw one.
    client: (ctx) => db(ctx.core) as unknown as PrismaClient,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    defaultConnectionSize: DEFAULT_PAGE,
    maxConnectionSize: MAX_PAGE,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: true,
    // One id per object: the global id is the /v1 id, whose prefix (prod_, cust_, …) names the type.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => decodeId(globalID),
    // An id of another store, environment or type, or of nothing, is a null node, never an error.
    nodeQueryOptions: {
      resolve: (_root, args, ctx, info): Promise<unknown> | null =>
        NODE_TYPES.has(args.id.typename) ? resolveNodes(builder, ctx, info, [args.id]).then((nodes) => nodes[0] ?? null) : null,
    },
    nodesQueryOptions: {
      resolve: (_root, args, ctx, info): Promise<unknown[]> =>
        resolveNodes(builder, ctx, info, args.ids.map((id) => (NODE_TYPES.has(id.typename) ? id : null))),
    },
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('Currency', CurrencyResolver);
builder.addScalarType('EmailAddress', EmailAddressResolver);
builder.addScalarType('PositiveInt', PositiveIntResolver);
builder.addScalarType('NonNegativeInt', NonNegativeIntResolver);

const WHOLE = /^-?(0|[1-9][0-9]*)$/;

function minorUnitsFrom(value: unknown): bigint {
  if (typeof value === 'string' && WHOLE.test(value)) return BigInt(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new GraphQLError('MinorUnits must be a whole number of minor units, written as a string such as "1999"');
}

builder.scalarType('MinorUnits', {
  description:
    'An amount in minor units of its currency (1999 = 19.99 EUR), as a decimal integer string so that 64-bit amounts survive JSON. Integers are accepted on input.',
  serialize: (value) => String(value),
  parseValue: minorUnitsFrom,
  parseLiteral: (node: ValueNode) => minorUnitsFrom(node.kind === Kind.STRING || node.kind === Kind.INT ? node.value : undefined),
});

const DECIMAL = /^-?\d+(\.\d+)?$/;

function decimalFrom(value: unknown): string {
  if (typeof value === 'string' && DECIMAL.test(value)) return value;
  throw new GraphQLError('Decimal must be a decimal number written as a string, such as "0.002"');
}

builder.scalarType('Decimal', {
  description: 'An exact decimal number as a string ("0.002"); used for prices below one minor unit. Never a float.',
  serialize: (value) => String(value),
  parseValue: decimalFrom,
  parseLiteral: (node: ValueNode) => decimalFrom(node.kind === Kind.STRING ? node.value : undefined),
});

builder.queryType({});
builder.mutationType({});

export const ModeEnum = builder.enumType('Mode', { values: ['test', 'prod'] as const });

/** An amount with its currency. */
export interface MoneyShape {
  amount: bigint;
  currency: string;
}

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount of money: minor units of `currency` (1999 EUR = €19.99)',
  fields: (t) => ({
    amount: t.field({ type: 'MinorUnits', resolve: (m) => m.amount }),
    currency: t.expose('currency', { type: 'Currency' }),
  }),
});

/**
 * A closed set of /v1 values as a GraphQL enum. Values that are not GraphQL names (`every-month`,
 * `subscription.paid`) get one with `_` for `-` and `.`; resolvers and inputs see the /v1 value.
 */
export function apiEnum<const V extends string>(name: string, values: readonly V[], description?: string) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [v.replace(/[-.]/g, '_'), { value: v }])) as { [K in V]: { value: K } },
  });
}
