import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { orderEntity, serializeOrder } from './orders.serializer.js';
import { pageOf } from '../../lib/response-schemas.js';
import { listCustomerOrdersSchema } from './orders.schemas.js';
import { listCustomerOrders } from './orders.service.js';

/** The order operations, as REST (orders.routes.ts) runs them; GraphQL reads orders through Customer.orders and Transaction.order. */
export const listCustomerOrdersOp = defineOperation({
  name: 'orders.list_for_customer',
  summary: "List a customer's orders",
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: listCustomerOrdersSchema,
  write: false,
  output: pageOf(orderEntity),
  run: listCustomerOrders,
  render: (_ctx, page) => mapPage(page, serializeOrder),
});
