import type { CreditAccount, LedgerEntry, LedgerTransaction, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { callLedgerPost, db } from '../../db/tenant.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MAX_LEDGER_AMOUNT } from './credits.schemas.js';

/** The auto-recharge job's kind (auto-recharge.ts runs it). */
export const AUTO_RECHARGE_JOB = 'credits.auto_recharge';

/**
 * The double-entry ledger behind customer credits (the pgledger / Blnk design). A transaction
 * is balanced entries (debits equal credits); each account keeps its running balance (credits
 * minus debits) and a version on its row, and each entry the balance right after it. A posting
 * locks its accounts in id order (two opposite transfers wait for each other instead of
 * deadlocking), refuses whole what would take a customer account below zero, and is found
 * again by its idempotency key instead of posting twice. Events are recorded in the same
 * transaction.
 */

export type Side = 'debit' | 'credit';

export interface Posting {
  accountId: string;
  side: Side;
  amount: bigint;
  /** Where the account and the amount came from in the caller's input, for errors (`entries[2].amount`, `id`). */
  accountPath: (string | number)[];
  amountPath: (string | number)[];
}

export interface PostRequest {
  reference: string;
  idempotencyKey: string;
  /** The request as the caller sent it, hashed: the same key with another request is refused. */
  requestHash: string;
  postings: Posting[];
  reversalOfId?: string;
}

export type LedgerTransactionWithEntries = LedgerTransaction & { entries: LedgerEntry[] };

export const TRANSACTION_INCLUDE = { entries: { orderBy: { id: 'asc' } } } satisfies Prisma.LedgerTransactionInclude;

/** Refuses an unbalanced transaction, naming `entries`. */
export function assertBalanced(postings: readonly Pick<Posting, 'side' | 'amount'>[]): void {
  const debits = postings.filter((p) => p.side === 'debit').reduce((sum, p) => sum + p.amount, 0n);
  const credits = postings.filter((p) => p.side === 'credit').reduce((sum, p) => sum + p.amount, 0n);
  if (debits !== credits) {
    throw new AppError('unbalanced_transaction', 'Total debits must equal total credits', [{ path: ['entries'], message: `debits total ${debits} but credits total ${credits}; they must be equal` }]);
  }
}

/** An account refuses new postings once frozen or closed. */
export function assertOpen(account: Pick<CreditAccount, 'id' | 'status'>, path: (string | number)[]): void {
  if (account.status === 'frozen') throw new AppError('account_frozen', `Account ${account.id} is frozen: it takes no new transactions until unfrozen`, [{ path, message: `account ${account.id} is frozen` }]);
  if (account.status === 'closed') throw new AppError('account_closed', `Account ${account.id} is closed`, [{ path, message: `account ${account.id} is closed` }]);
}

/**
 * Posts a balanced transaction, or finds the one its idempotency key already posted. The
 * database does it in one round trip (`credit_ledger_post`, see its migration): the key
 * claimed (a second request with it finds the first's transaction), the accounts locked in id
 * order and checked, the entries, balances and events written, and the recharge job of an
 * account a debit took below its auto-recharge threshold scheduled. Inside the caller's
 * transaction when there is one (a grant with the payment that bought it); alone, it is one
 * atomic statement, and a refusal leaves nothing written.
 */
export async function post(ctx: RequestContext, req: PostRequest): Promise<{ transaction: LedgerTransactionWithEntries; replayed: boolean }> {
  assertBalanced(req.postings);
  const now = ctx.clock.now();
  const transactionId = newId('ledgerTransaction');
  // Credits before debits, so that an entry's balance dips below zero only when the account's
  // final balance does (and the transaction is refused).
  const ordered = [...req.postings.filter((p) => p.side === 'credit'), ...req.postings.filter((p) => p.side === 'debit')];
  // Two event ids per account (its movement, its exhaustion), issued here so that the ledger's
  // events sort among the others of the same transaction.
  const eventIds = [...new Set(ordered.map((p) => p.accountId))].flatMap(() => [newId('event'), newId('event')]);
  const rows = await callLedgerPost(ctx, { transactionId, reference: req.reference, idempotencyKey: req.idempotencyKey, requestHash: req.requestHash, reversalOfId: req.reversalOfId ?? null, now, entries: ordered, eventIds, rechargeJobKind: AUTO_RECHARGE_JOB });
  const first = rows[0]!;
  const posting = (accountId: string) => req.postings.find((p) => p.accountId === accountId)!;
  switch (first.outcome) {
    case 'replayed':
      return { transaction: await db(ctx).ledgerTransaction.findUniqueOrThrow({ where: { id: first.account_id }, include: TRANSACTION_INCLUDE }), replayed: true };
    case 'key_reused':
      throw new AppError('idempotency_key_reused', 'This idempotency_key was already used with a different request', [
        { path: ['idempotency_key'], message: `was already used by transaction ${first.account_id} with a different request; use a new key for a new transaction` },
      ]);
    case 'not_found':
      throw new AppError('not_found', `Account ${first.account_id} not found`, [{ path: posting(first.account_id).accountPath, message: `no account ${first.account_id} in this store and environment` }]);
    case 'frozen':
    case 'closed':
      assertOpen({ id: first.account_id, status: first.outcome }, posting(first.account_id).accountPath);
      break;
    case 'overflow':
      throw new AppError('validation_failed', 'Validation failed', [
        { path: posting(first.account_id).amountPath, message: `would take account ${first.account_id} beyond the largest balance a ledger keeps (${MAX_LEDGER_AMOUNT})` },
      ]);
    case 'insufficient': {
      const { unitLabel } = await db(ctx).creditAccount.findUniqueOrThrow({ where: { id: first.account_id }, select: { unitLabel: true } });
      throw new AppError('insufficient_balance', `Account ${first.account_id} has ${first.balance_after} ${unitLabel}; the transaction would take it below zero`, [
        { path: posting(first.account_id).amountPath, message: `exceeds the balance of account ${first.account_id} (${first.balance_after} ${unitLabel})` },
      ]);
    }
  }
  const { storeId, mode } = ctx;
  const transaction: LedgerTransactionWithEntries = {
    id: transactionId,
    storeId,
    mode,
    reference: req.reference,
    idempotencyKey: req.idempotencyKey,
    requestHash: req.requestHash,
    reversalOfId: req.reversalOfId ?? null,
    description: null,
    metadata: {},
    createdAt: now,
    entries: rows.map((r) => ({ id: r.entry_id!, storeId, mode, transactionId, accountId: r.account_id, side: r.side!, amount: r.amount!, balanceAfter: r.balance_after!, createdAt: now })),
  };
  return { transaction, replayed: false };
}
