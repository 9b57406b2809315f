import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { customerEntity, serializeCustomer } from './customers.serializer.js';
import { createCustomerSchema, listCustomersSchema, retrieveCustomerSchema, updateCustomerSchema } from './customers.schemas.js';
import { createCustomer, findCustomerOrThrow, listCustomers, updateCustomer } from './customers.service.js';

const render = (_ctx: unknown, c: Parameters<typeof serializeCustomer>[0]) => serializeCustomer(c);

export const createCustomerOp = defineOperation({ name: 'customers.create', summary: 'Create a customer', description: 'The email (compared case-insensitively) and `external_id` are unique within the store: a taken one is refused (400 `already_exists`).', input: createCustomerSchema, write: true, output: customerEntity, run: createCustomer, render });
export const retrieveCustomerOp = defineOperation({ name: 'customers.retrieve', summary: 'Retrieve a customer', description: 'By `customer_id` or by `email` (one of them).', input: retrieveCustomerSchema, write: false, output: customerEntity, run: findCustomerOrThrow, render });
export const updateCustomerOp = defineOperation({ name: 'customers.update', summary: 'Update a customer', description: 'Only the fields supplied change: `null` clears `name`, `country` and `external_id`, and `metadata` is merged.', input: updateCustomerSchema, write: true, output: customerEntity, run: updateCustomer, render });
export const listCustomersOp = defineOperation({
  name: 'customers.list',
  summary: 'List customers',
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: listCustomersSchema,
  write: false,
  output: pageOf(customerEntity),
  run: listCustomers,
  render: (_ctx, page) => mapPage(page, serializeCustomer),
});
