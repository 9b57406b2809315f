import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { customerEntity, serializeCustomer } from './customers.serializer.js';
import { createCustomerSchema, listCustomersSchema, retrieveCustomerSchema, updateCustomerSchema } from './customers.schemas.js';
import { createCustomer, findCustomerOrThrow, listCustomers, updateCustomer } from './customers.service.js';

const render = (_ctx: unknown, c: Parameters<typeof serializeCustomer>[0]) => serializeCustomer(c);

export const createCustomerOp = defineOperation({ name: 'customers.create', input: createCustomerSchema, write: true, output: customerEntity, run: createCustomer, render });
export const retrieveCustomerOp = defineOperation({ name: 'customers.retrieve', input: retrieveCustomerSchema, write: false, output: customerEntity, run: findCustomerOrThrow, render });
export const updateCustomerOp = defineOperation({ name: 'customers.update', input: updateCustomerSchema, write: true, output: customerEntity, run: updateCustomer, render });
export const listCustomersOp = defineOperation({
  name: 'customers.list',
  input: listCustomersSchema,
  write: false,
  output: pageOf(customerEntity),
  run: listCustomers,
  render: (_ctx, page) => mapPage(page, serializeCustomer),
});
