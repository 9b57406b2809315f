import type { CreditAccount, LedgerEntry } from '../../generated/prisma/client.js';
import type { LedgerTransactionWithEntries } from './ledger.js';

/** /v1 JSON of the ledger, as the official client's models read it: amounts as decimal strings, times as ISO strings. */
export function serializeAccount(a: CreditAccount) {
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

export function serializeEntry(e: LedgerEntry) {
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

export function serializeTransaction(t: LedgerTransactionWithEntries) {
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

export const serializeBalance = (b: { balance: bigint; updatedAt?: Date; asOf?: Date }) => ({
  object: 'customer_credits_balance',
  balance: b.balance.toString(),
  ...(b.updatedAt ? { updated_at: b.updatedAt.toISOString() } : {}),
  ...(b.asOf ? { as_of: b.asOf.toISOString() } : {}),
});

export { listOf } from '../../lib/pagination.js';
