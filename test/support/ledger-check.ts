import { expect } from 'vitest';
import type { Database } from '../../src/db/database.js';

/**
 * The ledger's invariants, recomputed from the entries with SQL of its own: every account's
 * balance is the sum of its entries (credits minus debits), each entry's balance_after is the
 * running sum up to it, no customer account is or was below zero, and every transaction's
 * debits equal its credits. Run after the tests that post concurrently.
 */
export async function expectLedgerConsistent(db: Database): Promise<void> {
  const drift = await db.prisma.$queryRawUnsafe<{ id: string; balance: string; computed: string }[]>(`
    SELECT a."id", a."balance"::text AS balance, COALESCE(sum(CASE e."side" WHEN 'credit' THEN e."amount" ELSE -e."amount" END), 0)::text AS computed
      FROM "CreditAccount" a LEFT JOIN "LedgerEntry" e ON e."accountId" = a."id"
     GROUP BY a."id" HAVING a."balance" <> COALESCE(sum(CASE e."side" WHEN 'credit' THEN e."amount" ELSE -e."amount" END), 0)`);
  expect(drift, 'account balances that are not the sum of their entries').toEqual([]);
  const running = await db.prisma.$queryRawUnsafe<{ id: string }[]>(`
    SELECT "id" FROM (
      SELECT e."id", e."balanceAfter", sum(CASE e."side" WHEN 'credit' THEN e."amount" ELSE -e."amount" END) OVER (PARTITION BY e."accountId" ORDER BY e."id") AS running
        FROM "LedgerEntry" e) x
     WHERE x."balanceAfter" <> x.running`);
  expect(running, 'entries whose balance_after is not the running sum').toEqual([]);
  const negative = await db.prisma.$queryRawUnsafe<{ id: string }[]>(`
    SELECT e."id" FROM "LedgerEntry" e JOIN "CreditAccount" a ON a."id" = e."accountId" WHERE a."owner" = 'customer' AND e."balanceAfter" < 0
    UNION ALL SELECT "id" FROM "CreditAccount" WHERE "owner" = 'customer' AND "balance" < 0`);
  expect(negative, 'customer accounts below zero').toEqual([]);
  const unbalanced = await db.prisma.$queryRawUnsafe<{ id: string }[]>(`
    SELECT t."id" FROM "LedgerTransaction" t JOIN "LedgerEntry" e ON e."transactionId" = t."id"
     GROUP BY t."id" HAVING sum(CASE e."side" WHEN 'credit' THEN e."amount" ELSE -e."amount" END) <> 0 OR count(*) < 2`);
  expect(unbalanced, 'transactions whose debits and credits differ').toEqual([]);
}
