import type { Prisma as P } from '../generated/prisma/client.js';
import { columnList, jsonRow, prepared, rowFromJson } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

type CheckoutRow = P.CheckoutGetPayload<{ include: { discount: true; customer: true } }>;

/**
 * A checkout with its discount and customer in one named prepared statement: the hosted page
 * and every payment step read it (the payment twice, before and under the row lock). The same
 * value as the client's `findUnique` with those relations; null for an id this tenant does not
 * have. The product comes from the product read (and its cache), not from here.
 */
export async function readCheckout(ctx: TenantContext, id: string): Promise<CheckoutRow | null> {
  const [row] = await sqlClient(ctx).$queryRaw<(Record<string, unknown> & { discount: Record<string, unknown> | null; customer: Record<string, unknown> | null })[]>`${prepared}
    SELECT ${columnList('Checkout', 'ch')},
      (SELECT ${jsonRow('Discount', 'd')} FROM "Discount" d WHERE d."id" = ch."discountId") AS "discount",
      (SELECT ${jsonRow('Customer', 'cu')} FROM "Customer" cu WHERE cu."id" = ch."customerId") AS "customer"
    FROM "Checkout" ch
    WHERE ch."id" = ${id} AND ${tenantCondition(ctx, 'ch')}`;
  if (!row) return null;
  const { discount, customer, ...checkout } = row;
  return {
    ...(checkout as unknown as P.CheckoutGetPayload<object>),
    discount: discount ? rowFromJson('Discount', discount) : null,
    customer: customer ? rowFromJson('Customer', customer) : null,
  };
}
