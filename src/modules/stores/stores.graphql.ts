import { builder, ModeEnum } from '../../graphql/builder.js';
import { findOwnStore } from './stores.service.js';

builder.prismaObject('Store', {
  description: 'The seller: the store the API key belongs to',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The store id (sto_…): a split’s typeReference and recipients name stores by it' }),
    name: t.exposeString('name', { description: 'The store’s name' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the store was created' }),
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
