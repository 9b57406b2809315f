import { builder, ModeEnum } from '../../graphql/builder.js';
import { apiIdOf, toApiInput } from '../../graphql/input.js';
import { scope } from '../../context.js';
import { createCustomer, customerListFilter, findCustomer, retrieveCustomer, updateCustomer } from './customers.service.js';

builder.prismaNode('Customer', {
  id: { field: 'id' },
  findUnique: (id, ctx) => ({ id, ...scope(ctx.core) }),
  fields: (t) => ({
    apiId: t.exposeString('id', { description: 'The id used by the /v1 REST API' }),
    mode: t.expose('mode', { type: ModeEnum }),
    email: t.expose('email', { type: 'EmailAddress' }),
    name: t.exposeString('name', { nullable: true }),
    country: t.exposeString('country', { nullable: true }),
    externalId: t.exposeString('externalId', { nullable: true }),
    metadata: t.expose('metadata', { type: 'JSON' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

builder.queryFields((t) => ({
  customers: t.prismaConnection({
    type: 'Customer',
    cursor: 'id',
    description: "The store's customers in this environment, newest first",
    totalCount: (_p, _a, ctx) => ctx.core.db.customer.count({ where: customerListFilter(ctx.core) }),
    resolve: (query, _p, _a, ctx) =>
      ctx.core.db.customer.findMany({ ...query, where: customerListFilter(ctx.core), orderBy: { id: 'desc' } }),
  }),
  customer: t.prismaField({
    type: 'Customer',
    description: 'A customer by /v1 id (cust_…), global id, or e-mail',
    args: { id: t.arg.id(), email: t.arg({ type: 'EmailAddress' }) },
    resolve: async (query, _p, args, ctx) => {
      const found = await retrieveCustomer(ctx.core, {
        customer_id: args.id ? apiIdOf(String(args.id), 'Customer') : undefined,
        email: args.email ?? undefined,
      });
      return findCustomer(ctx.core, found.id, query);
    },
  }),
}));

const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  fields: (t) => ({
    email: t.string({ required: true }),
    name: t.string(),
    country: t.string(),
    metadata: t.field({ type: 'JSON' }),
    externalId: t.string(),
  }),
});

const UpdateCustomerInput = builder.inputType('UpdateCustomerInput', {
  fields: (t) => ({
    email: t.string(),
    name: t.string(),
    country: t.string(),
    metadata: t.field({ type: 'JSON', description: 'Merged into the existing metadata; a null value removes a key' }),
    externalId: t.string(),
  }),
});

builder.mutationFields((t) => ({
  createCustomer: t.prismaField({
    type: 'Customer',
    args: { input: t.arg({ type: CreateCustomerInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const created = await createCustomer(ctx.core, toApiInput(args.input));
      return findCustomer(ctx.core, created.id, query);
    },
  }),
  updateCustomer: t.prismaField({
    type: 'Customer',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateCustomerInput, required: true }) },
    resolve: async (query, _p, args, ctx) => {
      const input = toApiInput(args.input) as Record<string, unknown>;
      const updated = await updateCustomer(ctx.core, { ...input, customer_id: apiIdOf(String(args.id), 'Customer') });
      return findCustomer(ctx.core, updated.id, query);
    },
  }),
}));
