import type { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { orNotFound } from '../../lib/errors.js';
import { listing } from '../../db/listing.js';
import { assertCustomerExists } from '../customers/customers.service.js';
import type { ListCustomerOrdersInput, OrderFilter } from './orders.schemas.js';

type OrderSelection = { include?: P.OrderInclude; select?: P.OrderSelect };

/** An order with the caller's selection; null when the caller has no such order. */
export function findOrder(ctx: RequestContext, input: { id: string }, selection: OrderSelection = {}) {
  return db(ctx).order.findUnique({ ...selection, where: { id: input.id } });
}

export async function findOrderOrThrow(ctx: RequestContext, input: { id: string }) {
  return orNotFound(findOrder(ctx, input), 'Order', input.id);
}

/** Orders by id, for a per-request loader (GraphQL `Transaction.order`); ids the caller does not have are left out. */
export function findOrdersByIds(ctx: RequestContext, ids: readonly string[]) {
  return db(ctx).order.findMany({ where: { id: { in: [...ids] } } });
}

/** The store's orders, newest first (ids are time-sortable), optionally of one customer. */
export function orderListing(ctx: RequestContext, filter: OrderFilter) {
  const where: P.OrderWhereInput = filter.customer_id ? { customerId: filter.customer_id } : {};
  return listing(db(ctx).order, where, { id: 'desc' });
}

/** A customer's orders, newest first; a customer of another store or environment is a 404. */
export async function listCustomerOrders(ctx: RequestContext, input: ListCustomerOrdersInput) {
  await assertCustomerExists(ctx, input.id);
  return orderListing(ctx, { customer_id: input.id }).page(input);
}
