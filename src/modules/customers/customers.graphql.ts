import { builder, ModeEnum } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { toApiInput } from '../../graphql/input.js';
import { createCustomerOp, updateCustomerOp } from './customers.operations.js';
import { customerListing, findCustomer } from './customers.service.js';

builder.prismaNode('Customer', {
  id: { field: 'id' },
  nullable: true,
  fields: (t) => ({
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

listQuery('customers', {
  type: 'Customer',
  description: "The store's customers in this environment, newest first",
  listing: (ctx) => customerListing(ctx),
});

builder.queryField('customer', (t) =>
  t.prismaField({
    type: 'Customer',
    nullable: true,
    description: 'A customer by id (cust_…) or e-mail; null when this store has none such in this environment',
    args: { id: t.arg.id(), email: t.arg({ type: 'EmailAddress' }) },
    resolve: (query, _p, args, ctx) => {
      if (args.id == null && args.email == null) return null;
      return findCustomer(ctx.core, { customer_id: args.id == null ? undefined : String(args.id), email: args.email ?? undefined }, query);
    },
  }),
);

const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  fields: (t) => ({
    email: t.field({ type: 'EmailAddress', required: true }),
    name: t.string(),
    country: t.string({ description: 'Two-letter code (ISO 3166-1)' }),
    metadata: t.field({ type: 'JSON' }),
    externalId: t.string(),
  }),
});

const UpdateCustomerInput = builder.inputType('UpdateCustomerInput', {
  fields: (t) => ({
    id: t.id({ required: true }),
    email: t.field({ type: 'EmailAddress' }),
    name: t.string(),
    country: t.string(),
    metadata: t.field({ type: 'JSON', description: 'Merged into the existing metadata; a key with value null is removed' }),
    externalId: t.string(),
  }),
});

operationMutation('createCustomer', {
  op: createCustomerOp,
  input: CreateCustomerInput,
  payload: payloadType('CreateCustomerPayload', 'customer', 'Customer', 'The customer created'),
  description: 'Creates a customer; the e-mail is unique within the store and environment',
});

operationMutation('updateCustomer', {
  op: updateCustomerOp,
  input: UpdateCustomerInput,
  payload: payloadType('UpdateCustomerPayload', 'customer', 'Customer', 'The customer as changed'),
  description: 'Changes the fields given; metadata keys merge',
  toInput: ({ id, ...rest }) => ({ ...(toApiInput(rest) as object), customer_id: id }),
  fieldNames: { customer_id: 'id' },
});
