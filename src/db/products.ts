import type { Prisma as P } from '../generated/prisma/client.js';
import { columnList, jsonRow, prepared, rowFromJson } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

type ProductWithRelations = P.ProductGetPayload<{ include: { customFields: true; features: true; usagePrices: true } }>;

type Json = Record<string, unknown>;

/**
 * A product with its custom fields, features (by position) and usage prices (by id) in one
 * named prepared statement: the hottest read of the API (`GET /v1/products/{id}`, every
 * checkout), where going through the client's query engine cost several times the statement
 * itself. The same value the client's `findUnique` with those relations returns; null for an
 * id this tenant does not have.
 */
export async function readProduct(ctx: TenantContext, id: string): Promise<ProductWithRelations | null> {
  const [row] = await sqlClient(ctx).$queryRaw<(Json & { customFields: Json[]; features: Json[]; usagePrices: Json[] })[]>`${prepared}
    SELECT ${columnList('Product', 'p')},
      COALESCE((SELECT json_agg(${jsonRow('ProductCustomField', 'c')} ORDER BY c."position") FROM "ProductCustomField" c WHERE c."productId" = p."id"), '[]') AS "customFields",
      COALESCE((SELECT json_agg(${jsonRow('ProductFeature', 'f')} ORDER BY f."position") FROM "ProductFeature" f WHERE f."productId" = p."id"), '[]') AS "features",
      COALESCE((SELECT json_agg(${jsonRow('UsagePrice', 'u')} ORDER BY u."id") FROM "UsagePrice" u WHERE u."productId" = p."id"), '[]') AS "usagePrices"
    FROM "Product" p
    WHERE p."id" = ${id} AND ${tenantCondition(ctx, 'p')}`;
  if (!row) return null;
  const { customFields, features, usagePrices, ...product } = row;
  return {
    ...(product as unknown as P.ProductGetPayload<object>),
    customFields: customFields.map((c) => rowFromJson('ProductCustomField', c)),
    features: features.map((f) => rowFromJson('ProductFeature', f)),
    usagePrices: usagePrices.map((u) => rowFromJson('UsagePrice', u)),
  };
}
