import type { Prisma as P } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { notFound } from '../../lib/errors.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { findCustomer } from '../customers/customers.service.js';
import { listCustomerOrdersSchema } from './orders.schemas.js';

/** Ids are time-sortable, so this is newest first. */
export const ORDERS_NEWEST_FIRST = { id: 'desc' } as const satisfies P.OrderOrderByWithRelationInput;

export function orderListFilter(ctx: RequestContext, customerId?: string): P.OrderWhereInput {
  return { ...scope(ctx), ...(customerId ? { customerId } : {}) };
}

export async function findOrder<Q extends { include?: P.OrderInclude; select?: P.OrderSelect }>(ctx: RequestContext, id: string, query?: Q) {
  const row = await ctx.db.order.findFirst({ ...(query ?? {}), where: { id, ...scope(ctx) } });
  if (!row) throw notFound('Order', id);
  return row;
}

/** A customer's orders, newest first; a customer of another store or environment is not found. */
export async function listCustomerOrders(ctx: RequestContext, customerId: string, raw: unknown) {
  const input = parseInput(listCustomerOrdersSchema, raw);
  const customer = await findCustomer(ctx, customerId, { select: { id: true } });
  const where = orderListFilter(ctx, customer.id);
  const [items, total] = await Promise.all([
    ctx.db.order.findMany({ where, orderBy: ORDERS_NEWEST_FIRST, ...pageWindow(input) }),
    ctx.db.order.count({ where }),
  ]);
  return toPage(items, total, input);
}
