import { Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { listing } from '../../db/listing.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { AppError, notFound, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { PageInput } from '../../lib/pagination.js';
import type { CreateCustomerInput, RetrieveCustomerInput, UpdateCustomerInput } from './customers.schemas.js';

type CustomerSelection = { include?: P.CustomerInclude; select?: P.CustomerSelect };

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

export async function createCustomer(ctx: RequestContext, input: CreateCustomerInput) {
  const email = normalizeEmail(input.email);
  // A unique violation aborts the transaction it happens in; in a savepoint-less transaction
  // that is the whole operation, which is what a refused create should do anyway.
  try {
    return await db(ctx).customer.create({
      data: {
        id: newId('customer'),
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

/** By id or e-mail, with the caller's selection; null when the store has no such customer in this environment. */
export function findCustomer(ctx: RequestContext, input: { customer_id?: string; email?: string }, selection: CustomerSelection = {}) {
  return db(ctx).customer.findFirst({
    ...selection,
    // One statement per relation level, each paged in SQL: the joined form builds every related
    // row's JSON (a customer's 500 subscriptions, with their products and charges) before it
    // applies a connection's `first`, so it cost 14 times the statement at 500 subscriptions.
    relationLoadStrategy: 'query',
    where: { ...(input.customer_id ? { id: input.customer_id } : {}), ...(input.email ? { email: normalizeEmail(input.email) } : {}) },
  });
}

export async function findCustomerOrThrow(ctx: RequestContext, input: RetrieveCustomerInput) {
  return orNotFound(findCustomer(ctx, input), 'Customer', input.customer_id ?? input.email);
}

/** Throws 404 unless the caller has this customer: lists of a customer start here. */
export async function assertCustomerExists(ctx: RequestContext, id: string): Promise<void> {
  if (!(await db(ctx).customer.count({ where: { id } }))) throw notFound('Customer', id);
}

/**
 * PATCH. The row is locked first, so two concurrent updates apply one after the other: each
 * writes only its own fields, and a metadata merge starts from the other's result, so no
 * change and no key is lost.
 */
export async function updateCustomer(ctx: RequestContext, input: UpdateCustomerInput) {
  const email = input.email !== undefined ? normalizeEmail(input.email) : undefined;
  return inTransaction(ctx, async (tx) => {
    if (!(await lockRow(tx, 'Customer', input.customer_id))) throw notFound('Customer', input.customer_id);
    const current = await db(tx).customer.findUniqueOrThrow({ where: { id: input.customer_id } });
    try {
      return await db(tx).customer.update({
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
  });
}

function mergeMetadata(current: unknown, patch: Record<string, string | number | boolean | null>) {
  const merged: Record<string, unknown> = { ...(current && typeof current === 'object' ? (current as object) : {}) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged as P.InputJsonObject;
}

/** The store's customers, newest first. */
export function customerListing(ctx: RequestContext) {
  return listing(db(ctx).customer, {}, { id: 'desc' });
}

export function listCustomers(ctx: RequestContext, input: PageInput) {
  return customerListing(ctx).page(input);
}
