import { z } from 'zod';
import { pageQuery } from '../../lib/pagination.js';
import { resourceId } from '../../lib/schemas.js';

/** Input schemas of the order operations, in the /v1 field names. */

export const ORDER_STATUSES = ['pending', 'paid', 'refunded', 'partially_refunded'] as const;
export const ORDER_TYPES = ['onetime', 'recurring'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type OrderType = (typeof ORDER_TYPES)[number];

export const orderFilterSchema = z.object({ customer_id: resourceId.optional() });
export type OrderFilter = z.infer<typeof orderFilterSchema>;

/** GET /v1/customers/{id}/orders: the customer (path) and paging; other query parameters are ignored. */
export const listCustomerOrdersSchema = pageQuery(50).extend({ id: resourceId });
export type ListCustomerOrdersInput = z.infer<typeof listCustomerOrdersSchema>;
