import type { Split, SplitRecipient } from '../generated/prisma/client.js';
import { columnList, jsonRow, prepared, rowFromJson } from './rows.js';
import { sqlClient, tenantCondition, type TenantContext } from './tenant.js';

/**
 * The enabled splits that cover a payment of the caller's store (the store's own, and those of
 * the products paid for), each with its enabled store recipients, oldest first: one named
 * prepared statement, since every paid transaction asks.
 */
export async function readPaymentSplits(ctx: TenantContext, productIds: readonly string[]): Promise<(Split & { recipients: SplitRecipient[] })[]> {
  const rows = await sqlClient(ctx).$queryRaw<(Split & { recipients: Record<string, unknown>[] })[]>`${prepared}
    SELECT ${columnList('Split', 's')},
      COALESCE((SELECT json_agg(${jsonRow('SplitRecipient', 'r')} ORDER BY r."id") FROM "SplitRecipient" r
                WHERE r."splitId" = s."id" AND r."enabled" AND r."recipientType" = 'store'), '[]') AS "recipients"
    FROM "Split" s
    WHERE ${tenantCondition(ctx, 's')} AND s."deletedAt" IS NULL AND s."enabled"
      AND ((s."type" = 'store' AND s."typeReference" = ${ctx.storeId}) OR (s."type" = 'product' AND s."typeReference" = ANY(${[...productIds]}::text[])))
    ORDER BY s."id"`;
  return rows.map((s) => ({ ...s, recipients: s.recipients.map((r) => rowFromJson<SplitRecipient>('SplitRecipient', r)) }));
}
