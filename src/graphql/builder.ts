import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import DataloaderPlugin from '@pothos/plugin-dataloader';
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
import type { GraphQLContext } from './context.js';

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
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  prisma: {
    // Resolved per request so that one schema serves every database (tests run several).
    client: (ctx) => ctx.core.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: true,
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('Currency', CurrencyResolver);
builder.addScalarType('EmailAddress', EmailAddressResolver);
builder.addScalarType('PositiveInt', PositiveIntResolver);
builder.addScalarType('NonNegativeInt', NonNegativeIntResolver);

builder.queryType({});
builder.mutationType({});

export const ModeEnum = builder.enumType('Mode', { values: ['test', 'prod'] as const });
