import type { Prisma as P } from '../generated/prisma/client.js';
import { Prisma } from '../generated/prisma/client.js';
import { PREPARED } from './database.js';
import { columnList, jsonRow, rowFromJson } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

type CheckoutRow = P.CheckoutGetPayload<{ include: { discount: true; customer: true } }>;

let select: Prisma.Sql | undefined;
/** Built once: the statement's text is the same for every call. */
const selectCheckout = () =>
  (select ??= Prisma.sql`${Prisma.raw(PREPARED)}
    SELECT ${columnList('Checkout', 'ch')},
      (SELECT ${jsonRow('Discount', 'd')} FROM "Discount" d WHERE d."id" = ch."discountId") AS "discount",
      (SELECT ${jsonRow('Customer', 'cu')} FROM "Customer" cu WHERE cu."id" = ch."customerId") AS "customer"
    FROM "Checkout" ch`);

/**
 * A checkout with its discount and customer in one named prepared statement: the hosted page
 * and every payment step read it (the payment twice, before and under the row lock). The same
 * value as the client's `findUnique` with those relations; null for an id this tenant does not
 * have. The product comes from the product read (and its cache), not from here.
 */
export async function readCheckout(ctx: TenantContext, id: string): Promise<CheckoutRow | null> {
  const [row] = await sqlClient(ctx).$queryRaw<(Record<string, unknown> & { discount: Record<string, unknown> | null; customer: Record<string, unknown> | null })[]>`${selectCheckout()}
    WHERE ch."id" = ${id} AND ${tenantCondition(ctx, 'ch')}`;
  if (!row) return null;
  const { discount, customer, ...checkout } = row;
  return {
    ...(checkout as unknown as P.CheckoutGetPayload<object>),
    discount: discount ? rowFromJson('Discount', discount) : null,
    customer: customer ? rowFromJson('Customer', customer) : null,
  };
}
