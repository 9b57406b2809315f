import { Prisma as P } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { createCustomerSchema, listCustomersSchema, retrieveCustomerSchema, updateCustomerSchema } from './customers.schemas.js';

/** E-mail addresses identify customers within a store; compare them case-insensitively by storing them lowercased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** A unique-constraint violation becomes the spec's "already exists" 400, naming the field. */
function alreadyExists(err: unknown, values: { email?: string; external_id?: string | null }): never {
  if (err instanceof P.PrismaClientKnownRequestError && err.code === 'P2002') {
    const target = JSON.stringify(err.meta ?? {});
    const field = /external/i.test(target) ? 'external_id' : 'email';
    const value = field === 'email' ? values.email : values.external_id;
    throw new AppError('already_exists', `A customer with ${field} ${value} already exists`, [
      { path: [field], message: `a customer with ${field} ${value} already exists` },
    ]);
  }
  throw err;
}

export async function createCustomer(ctx: RequestContext, raw: unknown) {
  const input = parseInput(createCustomerSchema, raw);
  const email = normalizeEmail(input.email);
  try {
    return await ctx.db.customer.create({
      data: {
        id: newId('customer'),
        ...scope(ctx),
        email,
        name: input.name ?? null,
        country: input.country ?? null,
        metadata: input.metadata ?? {},
        externalId: input.external_id ?? null,
      },
    });
  } catch (err) {
    alreadyExists(err, { email, external_id: input.external_id });
  }
}

export async function findCustomer<Q extends { include?: P.CustomerInclude; select?: P.CustomerSelect }>(
  ctx: RequestContext,
  id: string,
  query?: Q,
) {
  const row = await ctx.db.customer.findFirst({ ...(query ?? {}), where: { id, ...scope(ctx) } });
  if (!row) throw notFound('Customer', id);
  return row;
}

export async function retrieveCustomer(ctx: RequestContext, raw: unknown) {
  const q = parseInput(retrieveCustomerSchema, raw);
  const row = await ctx.db.customer.findFirst({
    where: { ...scope(ctx), ...(q.customer_id ? { id: q.customer_id } : {}), ...(q.email ? { email: normalizeEmail(q.email) } : {}) },
  });
  if (!row) throw notFound('Customer', q.customer_id ?? q.email);
  return row;
}

export async function updateCustomer(ctx: RequestContext, raw: unknown) {
  const input = parseInput(updateCustomerSchema, raw);
  const current = await findCustomer(ctx, input.customer_id);
  const email = input.email !== undefined ? normalizeEmail(input.email) : undefined;
  try {
    return await ctx.db.customer.update({
      where: { id: current.id },
      data: {
        ...(email !== undefined ? { email } : {}),
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.country !== undefined ? { country: input.country } : {}),
        ...(input.external_id !== undefined ? { externalId: input.external_id } : {}),
        // Metadata merges like Stripe's: sent keys replace, a null value removes a key.
        ...(input.metadata !== undefined ? { metadata: mergeMetadata(current.metadata, input.metadata) } : {}),
      },
    });
  } catch (err) {
    alreadyExists(err, { email, external_id: input.external_id });
  }
}

function mergeMetadata(current: unknown, patch: Record<string, string | number | boolean | null>) {
  const merged: Record<string, unknown> = { ...(current && typeof current === 'object' ? (current as object) : {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged as P.InputJsonObject;
}

export function customerListFilter(ctx: RequestContext): P.CustomerWhereInput {
  return scope(ctx);
}

export async function listCustomers(ctx: RequestContext, raw: unknown) {
  const input = parseInput(listCustomersSchema, raw);
  const where = customerListFilter(ctx);
  const [items, total] = await Promise.all([
    ctx.db.customer.findMany({ where, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.customer.count({ where }),
  ]);
  return toPage(items, total, input);
}
