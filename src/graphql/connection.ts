import type { ArgBuilder, InputFieldMap, InputShapeFromFields } from '@pothos/core';
import type PrismaTypes from '../generated/pothos-types.js';
import type { RequestContext } from '../context.js';
import type { Listing } from '../lib/pagination.js';
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';

type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type Model = keyof PrismaTypes & string;

/**
 * A root list as a Relay connection (`first`/`after`, `totalCount`) over the listing its
 * service defines, the same one REST pages through: the filter lives in the service, the
 * tenant in the data layer, the cursor in the plugin.
 */
export function listQuery<Args extends InputFieldMap>(
  name: string,
  options: {
    type: Model;
    description: string;
    args?: (arg: ArgBuilder<SchemaTypes>) => Args;
    listing: (ctx: RequestContext, args: InputShapeFromFields<Args>) => Listing<object, unknown>;
  },
) {
  builder.queryField(name, (t) => {
    const field: Parameters<typeof t.prismaConnection>[0] = {
      type: options.type,
      cursor: 'id',
      description: options.description,
      args: options.args?.(t.arg) ?? {},
      totalCount: (_parent: unknown, args: unknown, ctx: GraphQLContext) => options.listing(ctx.core, args as InputShapeFromFields<Args>).count(),
      resolve: (query: object, _parent: unknown, args: unknown, ctx: GraphQLContext) => options.listing(ctx.core, args as InputShapeFromFields<Args>).rows(query),
    } as never;
    return t.prismaConnection(field);
  });
}

/** The lookup's `id` argument: the /v1 id, with the prefix `what` names (`A product by id (prod_…)`). */
function idDescription(what: string): string {
  const prefix = /\(([a-z]+_…)\)/.exec(what)?.[1];
  return prefix ? `The /v1 id (${prefix})` : 'The /v1 id';
}

/**
 * A root lookup by /v1 id, resolved by the service's own `find` (tenant-bound, selecting what
 * the query asks for). Null, not an error, for an id this store does not have in this
 * environment, as `node` answers.
 */
export function lookupQuery(
  name: string,
  options: {
    type: Model;
    what: string;
    find: (ctx: RequestContext, input: { id: string }, query: object) => Promise<unknown>;
  },
) {
  builder.queryField(name, (t) => {
    const field: Parameters<typeof t.prismaField>[0] = {
      type: options.type,
      nullable: true,
      description: `${options.what}; null when this store has none such in this environment`,
      args: { id: t.arg.id({ required: true, description: idDescription(options.what) }) },
      resolve: (query: object, _parent: unknown, args: { id: string | number }, ctx: GraphQLContext) => options.find(ctx.core, { id: String(args.id) }, query),
    } as never;
    return t.prismaField(field);
  });
}
