import type { Customer } from '../generated/prisma/client.js';
import { newId } from '../lib/ids.js';
import { columnList, prepared } from './rows.js';
import { sqlClient, type TenantContext } from './tenant.js';

/**
 * The buyer of a purchase as a customer of the store, in one statement: created, or found by
 * e-mail (two purchases of one new buyer at once share one customer), with a name and country
 * filled in where the customer had none. Returns the row as the client would.
 */
export async function upsertBuyer(ctx: TenantContext, buyer: { email: string; name: string | null; country: string | null }, now: Date): Promise<Customer> {
  const [row] = await sqlClient(ctx).$queryRaw<Customer[]>`${prepared}
    INSERT INTO "Customer" AS c ("id", "storeId", "mode", "email", "name", "country", "metadata", "createdAt", "updatedAt")
    VALUES (${newId('customer')}, ${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${buyer.email}, ${buyer.name}, ${buyer.country}, '{}', ${now}, ${now})
    ON CONFLICT ("storeId", "mode", "email") DO UPDATE SET
      "name" = COALESCE(c."name", EXCLUDED."name"),
      "country" = COALESCE(c."country", EXCLUDED."country"),
      "updatedAt" = CASE WHEN (c."name" IS NULL AND EXCLUDED."name" IS NOT NULL) OR (c."country" IS NULL AND EXCLUDED."country" IS NOT NULL) THEN EXCLUDED."updatedAt" ELSE c."updatedAt" END
    RETURNING ${columnList('Customer', 'c')}`;
  return row!;
}
