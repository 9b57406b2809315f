import { builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { listQuery } from '../../graphql/connection.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import { toApiInput } from '../../graphql/input.js';
import { createCustomerOp, updateCustomerOp } from './customers.operations.js';
import { customerListing, findCustomer } from './customers.service.js';

builder.prismaNode('Customer', {
  id: { field: 'id', description: 'The /v1 id (cust_…)' },
  nullable: true,
  description: 'A buyer of the store, identified by e-mail: made by a first payment or by createCustomer; their purchases hang off it',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    email: t.expose('email', { type: 'EmailAddress', description: 'Unique within the store and environment' }),
    name: t.exposeString('name', { nullable: true, description: 'Null when never given' }),
    country: t.exposeString('country', { nullable: true, description: 'Two-letter code (ISO 3166-1), from the first checkout unless set; null when unknown' }),
    externalId: t.exposeString('externalId', { nullable: true, description: 'Your own id for the customer, unique within the store and environment; null when not set' }),
    metadata: t.expose('metadata', { type: 'JSON', description: 'Your key-value pairs' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the customer was created' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the customer last changed' }),
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
    args: { id: t.arg.id({ description: 'The /v1 id (cust_…)' }), email: t.arg({ type: 'EmailAddress', description: 'The e-mail address; with an id too, both must match' }) },
    resolve: (query, _p, args, ctx) => {
      if (args.id == null && args.email == null) return null;
      return findCustomer(ctx.core, { customer_id: args.id == null ? undefined : String(args.id), email: args.email ?? undefined }, query);
    },
  }),
);

const CreateCustomerInput = builder.inputType('CreateCustomerInput', {
  description: 'A new customer',
  fields: (t) => ({
    email: t.field({ type: 'EmailAddress', required: true, description: 'Unique within the store and environment' }),
    name: t.string({ description: 'Up to 200 characters' }),
    country: t.string({ description: 'Two-letter code (ISO 3166-1)' }),
    metadata: t.field({ type: 'JSON', description: 'Your key-value pairs (at most 50 keys; string, number, boolean values)' }),
    externalId: t.string({ description: 'Your own id for the customer, unique within the store and environment' }),
  }),
});

const UpdateCustomerInput = builder.inputType('UpdateCustomerInput', {
  description: 'The customer’s fields to change; those not given keep their values',
  fields: (t) => ({
    id: t.id({ required: true, description: 'The customer (cust_…)' }),
    email: t.field({ type: 'EmailAddress', description: 'A new e-mail, unique within the store and environment' }),
    name: t.string({ description: 'Up to 200 characters' }),
    country: t.string({ description: 'Two-letter code (ISO 3166-1)' }),
    metadata: t.field({ type: 'JSON', description: 'Merged into the existing metadata; a key with value null is removed' }),
    externalId: t.string({ description: 'Your own id for the customer' }),
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
