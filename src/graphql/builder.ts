import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
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

/**
 * plugin-prisma adds `totalCount` to the connections that ask for it with no way to describe
 * it; this gives that field its description (the relay plugin's options describe the rest of
 * every connection, below). Descriptions only: nothing else of the field changes.
 */
const TOTAL_COUNT_DESCRIPTION = 'How many items the whole list has, over all pages';

class DescriptionsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    if (fieldConfig.extensions?.pothosPrismaTotalCount && !fieldConfig.description) return { ...fieldConfig, description: TOTAL_COUNT_DESCRIPTION };
    return fieldConfig;
  }
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      descriptions: DescriptionsPlugin<Types>;
    }
  }
}

// Once per process, however many times this module is evaluated.
if (!(SchemaBuilder as unknown as { plugins: Record<string, unknown> }).plugins.descriptions) SchemaBuilder.registerPlugin('descriptions', DescriptionsPlugin);

const PAGE = `${DEFAULT_PAGE} when neither first nor last is given, at most ${MAX_PAGE}`;

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
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin, ComplexityPlugin, 'descriptions'],
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
    // One id per object: the global id is the /v1 id, whose prefix (prod_, cust_, …) names the type.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalID) => decodeId(globalID),
    // Descriptions of the types and fields the plugin generates: Node, PageInfo, every connection and edge.
    nodeTypeOptions: { description: 'An object with a global id: the /v1 id, whose prefix names its type (`prod_…` a Product, `cust_…` a Customer); `node(id:)` reads any of them' },
    idFieldOptions: { description: 'The /v1 id; its prefix names the type (`prod_…`, `cust_…`, `sub_…`)' },
    pageInfoTypeOptions: { description: 'Where a page of a connection sits in the whole list, and the cursors to read the next or the previous page' },
    hasNextPageFieldOptions: { description: 'Items follow this page: pass endCursor as `after` to read them' },
    hasPreviousPageFieldOptions: { description: 'Items precede this page: pass startCursor as `before` to read them' },
    startCursorFieldOptions: { description: "Cursor of the page's first item; null for an empty page" },
    endCursorFieldOptions: { description: "Cursor of the page's last item; null for an empty page" },
    defaultConnectionTypeOptions: { description: 'One page of a list: its items (`nodes`, or `edges` with their cursors), `pageInfo` to read on, and `totalCount`' },
    defaultEdgeTypeOptions: { description: 'One item of a page and its cursor' },
    edgesFieldOptions: { description: "The page's items with their cursors, in the list's order" },
    nodesOnConnection: { description: "The page's items, in the list's order (edges without the cursors)" },
    pageInfoFieldOptions: { description: 'Whether more pages follow or precede, and the cursors to read them' },
    nodeFieldOptions: { description: 'The item' },
    cursorFieldOptions: { description: 'Opaque position of this item: pass it as `after` (or `before`) to read the items after (or before) it' },
    firstArgOptions: { description: `Page size from the start, or from after the \`after\` cursor: ${PAGE}` },
    afterArgOptions: { description: 'Read the items after this cursor (an endCursor or an edge cursor of an earlier page)' },
    lastArgOptions: { description: `Page size from the end, or from before the \`before\` cursor: ${PAGE}` },
    beforeArgOptions: { description: 'Read the items before this cursor (a startCursor or an edge cursor of an earlier page)' },
    // An id of another store, environment or type, or of nothing, is a null node, never an error.
    nodeQueryOptions: {
      description: 'Any object by its /v1 id (`prod_…`, `cust_…`, `sub_…`, …); null for an id of another store, environment or type, or of nothing',
      args: { id: { description: 'A /v1 id, as REST returns it' } },
      resolve: (_root, args, ctx, info): Promise<unknown> | null =>
        NODE_TYPES.has(args.id.typename) ? resolveNodes(builder, ctx, info, [args.id]).then((nodes) => nodes[0] ?? null) : null,
    },
    nodesQueryOptions: {
      description: 'Objects by their /v1 ids, in the order asked; null in place of an id this store does not have in this environment',
      args: { ids: { description: '/v1 ids, of any types' } },
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

builder.queryType({ description: "Reads of the API key's store, in the key's environment (test or prod)" });
builder.mutationType({
  description: 'Changes, each with one `input` and a payload: the object written, or the `userErrors` that refused it. An `Idempotency-Key` header makes a retry answer the first result',
});

export const ModeEnum = builder.enumType('Mode', {
  description: 'The environment an object lives in: each API key works in one, and never sees the other',
  values: {
    test: { value: 'test', description: 'Test data: test cards, the store’s own test clock' },
    prod: { value: 'prod', description: 'Production: real customers and payments' },
  } as const,
});

/** Description of the `mode` field every object of an environment carries. */
export const MODE_DESCRIPTION = 'The environment it belongs to (test or prod)';

/** An amount with its currency. */
export interface MoneyShape {
  amount: bigint;
  currency: string;
}

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount of money: `amount` in minor units (cents) of `currency`, as a string ("1999" EUR = €19.99)',
  fields: (t) => ({
    amount: t.field({ type: 'MinorUnits', description: 'Minor units (cents) of `currency`, as a decimal integer string', resolve: (m) => m.amount }),
    currency: t.expose('currency', { type: 'Currency', description: 'ISO 4217 code, uppercase (EUR, USD)' }),
  }),
});

/**
 * A closed set of /v1 values as a GraphQL enum. Values that are not GraphQL names (`every-month`,
 * `subscription.paid`) get one with `_` for `-` and `.`; resolvers and inputs see the /v1 value.
 * `valueDescriptions` describes the values whose meaning their name does not tell (by /v1 value).
 */
export function apiEnum<const V extends string>(name: string, values: readonly V[], description: string, valueDescriptions: Partial<Record<V, string>> = {}) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [v.replace(/[-.]/g, '_'), { value: v, description: valueDescriptions[v] }])) as unknown as { [K in V]: { value: K } },
  });
}
