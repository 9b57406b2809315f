import type { CreditAccount, LedgerEntry, LedgerTransaction, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { callLedgerPost, db, inTransactionNow, lockRows } from '../../db/tenant.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordEvents, type EventType } from '../events/events.service.js';
import { MAX_LEDGER_AMOUNT } from './credits.schemas.js';
import { scheduleJob } from '../../jobs/scheduled-jobs.js';

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

const signed = (p: Pick<Posting, 'side' | 'amount'>) => (p.side === 'credit' ? p.amount : -p.amount);

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
 * Posts a balanced transaction, or finds the one its idempotency key already posted. Runs in the
 * caller's transaction, which must be open. The accounts are locked in id order first; the
 * database then does the posting in one round trip (`credit_ledger_post`, see its migration):
 * the key claimed (a second request with it finds the first's transaction), the accounts
 * checked, the entries and balances written.
 */
export async function post(ctx: RequestContext, req: PostRequest): Promise<{ transaction: LedgerTransactionWithEntries; replayed: boolean }> {
  if (!inTransactionNow(ctx)) throw new Error('a ledger posting runs in the transaction of what it records');
  assertBalanced(req.postings);
  // The accounts' locks first: ids are made after them, so each account's entries sort by id in
  // the order they were applied (the running balances of a listing follow one another).
  await lockRows(ctx, 'CreditAccount', [...new Set(req.postings.map((p) => p.accountId))]);
  const now = ctx.clock.now();
  const transactionId = newId('ledgerTransaction');
  // Credits before debits, so that an entry's balance dips below zero only when the account's
  // final balance does (and the transaction is refused).
  const ordered = [...req.postings.filter((p) => p.side === 'credit'), ...req.postings.filter((p) => p.side === 'debit')];
  const entries = ordered.map((p) => ({ id: newId('ledgerEntry'), transactionId, accountId: p.accountId, side: p.side, amount: p.amount, createdAt: now }));
  const rows = await callLedgerPost(ctx, { transactionId, reference: req.reference, idempotencyKey: req.idempotencyKey, requestHash: req.requestHash, reversalOfId: req.reversalOfId ?? null, now, entries });
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
      const a = await db(ctx).creditAccount.findUniqueOrThrow({ where: { id: first.account_id }, select: { balance: true, unitLabel: true } });
      throw new AppError('insufficient_balance', `Account ${first.account_id} has ${a.balance} ${a.unitLabel}; the transaction would take it below zero`, [
        { path: posting(first.account_id).amountPath, message: `exceeds the balance of account ${first.account_id} (${a.balance} ${a.unitLabel})` },
      ]);
    }
  }
  const moved = rows.map((r) => ({ ...r, balance_before: r.balance_before!, balance_after: r.balance_after! }));
  await recordLedgerEvents(ctx, transactionId, req.reference, now, moved);
  // A debit below an account's auto-recharge threshold: its recharge job, once however many debits.
  for (const r of moved) {
    if (r.recharge_threshold !== null && r.balance_after < r.balance_before && r.balance_after < r.recharge_threshold) await scheduleJob(ctx, AUTO_RECHARGE_JOB, r.account_id, now);
  }
  // What was just written, as a read would return it (entries in id order, as generated).
  const running = new Map(moved.map((r) => [r.account_id, r.balance_before]));
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
    entries: entries.map((e) => {
      const after = running.get(e.accountId)! + signed(e);
      running.set(e.accountId, after);
      return { ...e, storeId, mode, balanceAfter: after };
    }),
  };
  return { transaction, replayed: false };
}

interface Movement {
  account_id: string;
  owner: string | null;
  customer_id: string | null;
  name: string | null;
  unit_label: string | null;
  balance_before: bigint;
  balance_after: bigint;
}

/**
 * Per customer account moved: `credits.granted` (net in) or `credits.consumed` (net out), and
 * `customer_credits.exhausted` when a debit leaves the balance at zero.
 */
async function recordLedgerEvents(ctx: RequestContext, transactionId: string, reference: string, at: Date, moved: Movement[]) {
  const events: { type: EventType; payload: Prisma.InputJsonObject }[] = [];
  for (const m of moved) {
    const net = m.balance_after - m.balance_before;
    if (m.owner !== 'customer' || net === 0n) continue;
    const movement = {
      id: transactionId,
      customer_id: m.customer_id!,
      account_id: m.account_id,
      bucket_name: m.name!,
      unit_label: m.unit_label!,
      amount_minor_units: (net < 0n ? -net : net).toString(),
      balance_after_minor_units: m.balance_after.toString(),
      reference,
      occurred_at: at.toISOString(),
    };
    events.push(net > 0n ? { type: 'credits.granted', payload: { ...movement, object: 'customer_credits_grant' } } : { type: 'credits.consumed', payload: { ...movement, object: 'customer_credits_consumption' } });
    if (net < 0n && m.balance_after === 0n) {
      events.push({
        type: 'customer_credits.exhausted',
        payload: {
          // The episode is named by the posting that emptied the bucket; it ends when credits are next added.
          id: `${m.account_id}:${transactionId}`,
          object: 'customer_credits_exhaustion',
          customer_id: m.customer_id!,
          bucket_name: m.name!,
          unit_label: m.unit_label!,
          shortfall_minor_units: '0',
          occurred_at: at.toISOString(),
        },
      });
    }
  }
  await recordEvents(ctx, events);
}
