import { z } from 'zod';
import type { CreditAccount, CreditAccountStatus, LedgerEntry } from '../../generated/prisma/client.js';
import { isoTimestamp } from '../../lib/response-schemas.js';
import { LEDGER_SIDES } from './credits.schemas.js';
import type { LedgerTransactionWithEntries } from './ledger.js';

export const CREDIT_ACCOUNT_STATUSES = ['active', 'frozen', 'closed'] as const satisfies readonly CreditAccountStatus[];

/** A ledger amount or balance as the client's models carry it: a whole number written in decimal (64-bit, so not a JSON number). */
const ledgerNumber = z.string().regex(/^-?[0-9]+$/);

/** The /v1 AccountResponseDto. */
export const accountResponseDto = z
  .object({
    id: z.string(),
    object: z.literal('customer_credits_account'),
    store_id: z.string(),
    customer_id: z.string(),
    name: z.string(),
    unit_label: z.string(),
    status: z.enum(CREDIT_ACCOUNT_STATUSES),
    // This service's extension: null without a rule.
    auto_recharge: z.object({ threshold: ledgerNumber, amount: ledgerNumber, product_id: z.string().nullable() }).nullable(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'AccountResponseDto' });
export type AccountResponseDto = z.infer<typeof accountResponseDto>;

/** The /v1 EntryResponseDto. */
export const entryResponseDto = z
  .object({
    id: z.string(),
    object: z.literal('customer_credits_entry'),
    transaction_id: z.string(),
    account_id: z.string(),
    side: z.enum(LEDGER_SIDES),
    amount: ledgerNumber,
    balance_after: ledgerNumber,
    created_at: isoTimestamp,
  })
  .meta({ id: 'EntryResponseDto' });
export type EntryResponseDto = z.infer<typeof entryResponseDto>;

/** The /v1 TransactionResponseDto: a ledger transaction (not a payment's TransactionEntity). */
export const transactionResponseDto = z
  .object({
    id: z.string(),
    object: z.literal('customer_credits_transaction'),
    store_id: z.string(),
    reference: z.string(),
    idempotency_key: z.string(),
    reversal_of: z.string().nullable(),
    entries: z.array(entryResponseDto),
    created_at: isoTimestamp,
  })
  .meta({ id: 'TransactionResponseDto' });
export type TransactionResponseDto = z.infer<typeof transactionResponseDto>;

/** The /v1 BalanceResponseDto: `updated_at` for the balance now, `as_of` for a balance at a past time. */
export const balanceResponseDto = z
  .object({
    object: z.literal('customer_credits_balance'),
    balance: ledgerNumber,
    updated_at: isoTimestamp.optional(),
    as_of: isoTimestamp.optional(),
  })
  .meta({ id: 'BalanceResponseDto' });
export type BalanceResponseDto = z.infer<typeof balanceResponseDto>;

/** /v1 JSON of the ledger, as the official client's models read it: amounts as decimal strings, times as ISO strings. */
export function serializeAccount(a: CreditAccount): AccountResponseDto {
  return {
    id: a.id,
    object: 'customer_credits_account',
    store_id: a.storeId,
    customer_id: a.customerId!,
    name: a.name,
    unit_label: a.unitLabel,
    status: a.status,
    // This service's extension (the client's model ignores it).
    auto_recharge:
      a.rechargeThreshold !== null && a.rechargeAmount !== null
        ? { threshold: a.rechargeThreshold.toString(), amount: a.rechargeAmount.toString(), product_id: a.rechargeProductId }
        : null,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt.toISOString(),
  };
}

export function serializeEntry(e: LedgerEntry): EntryResponseDto {
  return {
    id: e.id,
    object: 'customer_credits_entry',
    transaction_id: e.transactionId,
    account_id: e.accountId,
    side: e.side,
    amount: e.amount.toString(),
    balance_after: e.balanceAfter.toString(),
    created_at: e.createdAt.toISOString(),
  };
}

export function serializeTransaction(t: LedgerTransactionWithEntries): TransactionResponseDto {
  return {
    id: t.id,
    object: 'customer_credits_transaction',
    store_id: t.storeId,
    reference: t.reference,
    idempotency_key: t.idempotencyKey,
    reversal_of: t.reversalOfId,
    entries: t.entries.map(serializeEntry),
    created_at: t.createdAt.toISOString(),
  };
}

export const serializeBalance = (b: { balance: bigint; updatedAt?: Date; asOf?: Date }): BalanceResponseDto => ({
  object: 'customer_credits_balance',
  balance: b.balance.toString(),
  ...(b.updatedAt ? { updated_at: b.updatedAt.toISOString() } : {}),
  ...(b.asOf ? { as_of: b.asOf.toISOString() } : {}),
});

export { listOf } from '../../lib/pagination.js';
