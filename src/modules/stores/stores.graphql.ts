import { builder, ModeEnum } from '../../graphql/builder.js';
import { findOwnStore } from './stores.service.js';

builder.prismaObject('Store', {
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  store: t.prismaField({
    type: 'Store',
    description: 'The store the API key belongs to',
    resolve: (query, _p, _a, ctx) => findOwnStore(ctx.core, query),
  }),
  mode: t.field({
    type: ModeEnum,
    description: 'The environment of this listener and key',
    resolve: (_p, _a, ctx) => ctx.core.mode,
  }),
}));
