import type { CreditAccount, LedgerEntry, LedgerTransaction, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransactionNow, insertRows, lockRows, updateRows } from '../../db/tenant.js';
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
 * caller's transaction, which must be open.
 */
export async function post(ctx: RequestContext, req: PostRequest): Promise<{ transaction: LedgerTransactionWithEntries; replayed: boolean }> {
  if (!inTransactionNow(ctx)) throw new Error('a ledger posting runs in the transaction of what it records');
  assertBalanced(req.postings);
  const now = ctx.clock.now();
  const transactionId = newId('ledgerTransaction');
  // The key first: a second request with it waits here for the first to commit, then finds it.
  const claimed = await insertRows(
    ctx,
    'LedgerTransaction',
    [{ id: transactionId, reference: req.reference, idempotencyKey: req.idempotencyKey, requestHash: req.requestHash, reversalOfId: req.reversalOfId ?? null, createdAt: now }],
    { onConflict: { key: ['storeId', 'mode', 'idempotencyKey'] } },
  );
  if (claimed === 0) {
    const first = await db(ctx).ledgerTransaction.findFirstOrThrow({ where: { idempotencyKey: req.idempotencyKey }, include: TRANSACTION_INCLUDE });
    if (first.requestHash !== req.requestHash) {
      throw new AppError('idempotency_key_reused', 'This idempotency_key was already used with a different request', [
        { path: ['idempotency_key'], message: `was already used by transaction ${first.id} with a different request; use a new key for a new transaction` },
      ]);
    }
    return { transaction: first, replayed: true };
  }

  const ids = [...new Set(req.postings.map((p) => p.accountId))];
  await lockRows(ctx, 'CreditAccount', ids);
  const accounts = new Map((await db(ctx).creditAccount.findMany({ where: { id: { in: ids } } })).map((a) => [a.id, a]));
  for (const p of req.postings) {
    const account = accounts.get(p.accountId);
    if (!account) throw new AppError('not_found', `Account ${p.accountId} not found`, [{ path: p.accountPath, message: `no account ${p.accountId} in this store and environment` }]);
    assertOpen(account, p.accountPath);
  }

  // Credits before debits, so that an entry's balance dips below zero only when the account's
  // final balance does (and the transaction is refused).
  const ordered = [...req.postings.filter((p) => p.side === 'credit'), ...req.postings.filter((p) => p.side === 'debit')];
  const balances = new Map([...accounts].map(([id, a]) => [id, a.balance]));
  const entries = ordered.map((p) => {
    const after = balances.get(p.accountId)! + signed(p);
    balances.set(p.accountId, after);
    return { id: newId('ledgerEntry'), transactionId, accountId: p.accountId, side: p.side, amount: p.amount, balanceAfter: after, createdAt: now };
  });
  for (const [id, balance] of balances) {
    const account = accounts.get(id)!;
    const at = req.postings.find((p) => p.accountId === id)!.amountPath;
    if (account.owner === 'customer' && balance < 0n) {
      throw new AppError('insufficient_balance', `Account ${id} has ${account.balance} ${account.unitLabel}; the transaction would take it to ${balance}`, [
        { path: at, message: `exceeds the balance of account ${id} (${account.balance} ${account.unitLabel})` },
      ]);
    }
    if (balance > MAX_LEDGER_AMOUNT || balance < -MAX_LEDGER_AMOUNT) {
      throw new AppError('validation_failed', 'Validation failed', [{ path: at, message: `would take account ${id} beyond the largest balance a ledger keeps (${MAX_LEDGER_AMOUNT})` }]);
    }
  }

  await insertRows(ctx, 'LedgerEntry', entries);
  await updateRows(
    ctx,
    'CreditAccount',
    [...balances].map(([id, balance]) => ({ id, balance, version: accounts.get(id)!.version + 1 })),
  );
  await recordLedgerEvents(ctx, transactionId, req.reference, now, accounts, balances);
  // A debit below an account's auto-recharge threshold: its recharge job, once however many debits.
  for (const [id, after] of balances) {
    const a = accounts.get(id)!;
    if (a.rechargeThreshold !== null && after < a.balance && after < a.rechargeThreshold) await scheduleJob(ctx, AUTO_RECHARGE_JOB, id, now);
  }
  // What was just written, as a read would return it (entries in id order, as generated).
  const { storeId, mode } = accounts.values().next().value!;
  const tenant = { storeId, mode };
  const transaction: LedgerTransactionWithEntries = {
    id: transactionId,
    ...tenant,
    reference: req.reference,
    idempotencyKey: req.idempotencyKey,
    requestHash: req.requestHash,
    reversalOfId: req.reversalOfId ?? null,
    description: null,
    metadata: {},
    createdAt: now,
    entries: entries.map((e) => ({ ...e, ...tenant })),
  };
  return { transaction, replayed: false };
}

/**
 * Per customer account moved: `credits.granted` (net in) or `credits.consumed` (net out), and
 * `customer_credits.exhausted` when a debit leaves the balance at zero.
 */
async function recordLedgerEvents(ctx: RequestContext, transactionId: string, reference: string, at: Date, accounts: Map<string, CreditAccount>, balances: Map<string, bigint>) {
  const events: { type: EventType; payload: Prisma.InputJsonObject }[] = [];
  for (const [id, after] of balances) {
    const account = accounts.get(id)!;
    const net = after - account.balance;
    if (account.owner !== 'customer' || net === 0n) continue;
    const movement = {
      id: transactionId,
      customer_id: account.customerId!,
      account_id: account.id,
      bucket_name: account.name,
      unit_label: account.unitLabel,
      amount_minor_units: (net < 0n ? -net : net).toString(),
      balance_after_minor_units: after.toString(),
      reference,
      occurred_at: at.toISOString(),
    };
    events.push(net > 0n ? { type: 'credits.granted', payload: { ...movement, object: 'customer_credits_grant' } } : { type: 'credits.consumed', payload: { ...movement, object: 'customer_credits_consumption' } });
    if (net < 0n && after === 0n) {
      events.push({
        type: 'customer_credits.exhausted',
        payload: {
          // The episode is named by the posting that emptied the bucket; it ends when credits are next added.
          id: `${account.id}:${transactionId}`,
          object: 'customer_credits_exhaustion',
          customer_id: account.customerId!,
          bucket_name: account.name,
          unit_label: account.unitLabel,
          shortfall_minor_units: '0',
          occurred_at: at.toISOString(),
        },
      });
    }
  }
  await recordEvents(ctx, events);
}
