import type { CreditAccount, Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { canonical } from '../../core/idempotency.js';
import { afterCommit, db, insertRows, lockRow, updateRows } from '../../db/tenant.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import { cursorPage } from '../../db/listing.js';
import { assertCustomerExists } from '../customers/customers.service.js';
import type {
  BalanceInput,
  CreateAccountInput,
  CreditDebitInput,
  ListAccountsInput,
  ListEntriesInput,
  PostTransactionInput,
  ReverseOnAccountInput,
} from './credits.schemas.js';
import { assertOpen, post, TRANSACTION_INCLUDE, type LedgerTransactionWithEntries, type Posting, type Side } from './ledger.js';

/** Accounts the API shows: customers' buckets. The store's system accounts stay behind the ledger. */
const CUSTOMER_ACCOUNT = { owner: 'customer' } as const satisfies Prisma.CreditAccountWhereInput;

const requestHash = (operation: string, input: unknown) => sha256Hex(`${operation}\n${canonical(input)}`);

export async function findAccountOrThrow(ctx: RequestContext, id: string): Promise<CreditAccount> {
  const account = await db(ctx).creditAccount.findFirst({ where: { id, ...CUSTOMER_ACCOUNT } });
  if (!account) throw notFound('Account', id);
  return account;
}

/**
 * The store's counter-accounts: every credit to a customer is a debit on one of them and every
 * debit a credit, so each transaction balances; together they hold minus what the customers of
 * that unit hold. A unit has SYSTEM_SHARDS of them, a customer account always using the same
 * one: postings to different customers then lock different rows, where one store account
 * would make every posting of the store wait for the one before.
 */
export const SYSTEM_SHARDS = 16;

/** Ids of counter-accounts known to be committed (they are never deleted), by store, mode and unit. */
const systemAccounts = new Map<string, string>();

export function shardOf(accountId: string): number {
  let h = 0;
  for (let i = 0; i < accountId.length; i++) h = (h * 31 + accountId.charCodeAt(i)) | 0;
  return Math.abs(h) % SYSTEM_SHARDS;
}

export async function systemAccount(ctx: RequestContext, unitLabel: string, forAccountId: string): Promise<string> {
  const systemUnit = `${unitLabel}#${shardOf(forAccountId)}`;
  const cacheKey = `${ctx.storeId}\u0000${ctx.mode}\u0000${systemUnit}`;
  const known = systemAccounts.get(cacheKey);
  if (known) return known;
  const name = `system:${systemUnit}`;
  await insertRows(
    ctx,
    'CreditAccount',
    [{ id: newId('creditAccount'), owner: 'store', customerId: null, name, nameKey: name.toLowerCase(), systemUnit, unitLabel, createdAt: ctx.clock.now() }],
    { onConflict: { key: ['storeId', 'mode', 'systemUnit'] } },
  );
  const { id } = await db(ctx).creditAccount.findFirstOrThrow({ where: { systemUnit }, select: { id: true } });
  // Remembered once committed: a transaction that rolls back may have made the row.
  afterCommit(ctx, () => systemAccounts.set(cacheKey, id));
  return id;
}

/**
 * A customer's bucket of that name (names compare without regard to case), opened when there is
 * none. `created` says whether this call opened it.
 */
export async function openCustomerAccount(ctx: RequestContext, customerId: string, name: string, unitLabel: string): Promise<{ account: CreditAccount; created: boolean }> {
  const nameKey = name.toLowerCase();
  const created = await insertRows(
    ctx,
    'CreditAccount',
    [{ id: newId('creditAccount'), owner: 'customer', customerId, name, nameKey, systemUnit: null, unitLabel, createdAt: ctx.clock.now() }],
    { onConflict: { key: ['storeId', 'mode', 'customerId', 'nameKey'] } },
  );
  return { account: await db(ctx).creditAccount.findFirstOrThrow({ where: { customerId, nameKey } }), created: created > 0 };
}

/**
 * Moves `amount` between a customer's account and its store counter-account: `credit` into
 * the customer's, `debit` out of it. Credits, debits, seeding, grants and recharges all post so.
 */
export async function postAgainstStore(
  ctx: RequestContext,
  account: Pick<CreditAccount, 'id' | 'unitLabel'>,
  side: Side,
  amount: bigint,
  request: { reference: string; idempotencyKey: string; requestHash: string; accountPath: (string | number)[]; amountPath: (string | number)[] },
): Promise<LedgerTransactionWithEntries> {
  const { accountPath, amountPath, ...rest } = request;
  const counter: Side = side === 'credit' ? 'debit' : 'credit';
  const { transaction } = await post(ctx, {
    ...rest,
    postings: [
      { accountId: account.id, side, amount, accountPath, amountPath },
      { accountId: await systemAccount(ctx, account.unitLabel, account.id), side: counter, amount, accountPath, amountPath },
    ],
  });
  return transaction;
}

/** A customer's bucket; `initial_balance` is credited from the store's account in the same transaction. */
export async function createAccount(ctx: RequestContext, input: CreateAccountInput): Promise<CreditAccount> {
  await assertCustomerExists(ctx, input.customer_id);
  const { account, created } = await openCustomerAccount(ctx, input.customer_id, input.name, input.unit_label);
  if (!created) {
    throw new AppError('account_exists', `Customer ${input.customer_id} already has an account named ${input.name} (${account.id})`, [
      { path: ['name'], message: `is taken by account ${account.id} of this customer (names are compared without regard to case)` },
    ]);
  }
  if (input.initial_balance !== undefined && input.initial_balance > 0n) {
    await postAgainstStore(ctx, account, 'credit', input.initial_balance, {
      reference: 'initial_balance',
      idempotencyKey: `initial_balance:${account.id}`,
      requestHash: requestHash('credits.initial_balance', { id: account.id }),
      accountPath: ['customer_id'],
      amountPath: ['initial_balance'],
    });
    return findAccountOrThrow(ctx, account.id);
  }
  return account;
}

export async function listAccounts(ctx: RequestContext, input: ListAccountsInput) {
  if (input.customer_id) await assertCustomerExists(ctx, input.customer_id);
  const where = { ...CUSTOMER_ACCOUNT, ...(input.customer_id ? { customerId: input.customer_id } : {}) };
  return cursorPage((args) => db(ctx).creditAccount.findMany({ ...args, where: { ...where, ...args.where } }), input);
}

export async function listEntries(ctx: RequestContext, input: ListEntriesInput) {
  await findAccountOrThrow(ctx, input.id);
  return cursorPage((args) => db(ctx).ledgerEntry.findMany({ ...args, where: { accountId: input.id, ...args.where } }), input);
}

/** Now: the running balance on the row (one indexed read). At `at`: the balance after the last entry up to then. */
export async function accountBalance(ctx: RequestContext, input: BalanceInput): Promise<{ balance: bigint; updatedAt?: Date; asOf?: Date }> {
  const account = await findAccountOrThrow(ctx, input.id);
  if (!input.at) return { balance: account.balance, updatedAt: account.updatedAt };
  const last = await db(ctx).ledgerEntry.findFirst({ where: { accountId: input.id, createdAt: { lte: input.at } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { balanceAfter: true } });
  return { balance: last?.balanceAfter ?? 0n, asOf: input.at };
}

type Transition = 'freeze' | 'unfreeze' | 'close';

/** Freeze (no new transactions), unfreeze, close (for good, only at a zero balance). Asking for the state it is in changes nothing. */
export async function changeAccountStatus(ctx: RequestContext, id: string, to: Transition): Promise<CreditAccount> {
  if (!(await lockRow(ctx, 'CreditAccount', id))) throw notFound('Account', id);
  const account = await findAccountOrThrow(ctx, id);
  if (account.status === 'closed') {
    if (to === 'close') throw new AppError('account_closed', `Account ${id} is already closed`);
    throw new AppError('account_closed', `Account ${id} is closed; closing cannot be undone`);
  }
  const status = to === 'freeze' ? 'frozen' : to === 'unfreeze' ? 'active' : 'closed';
  if (to === 'close' && account.balance !== 0n) {
    throw new AppError('balance_not_zero', `Account ${id} holds ${account.balance} ${account.unitLabel}; only an account at zero can be closed (debit or reverse the rest first)`, [
      { path: ['id'], message: `holds ${account.balance} ${account.unitLabel}; close needs a balance of 0` },
    ]);
  }
  if (account.status === status) return account;
  await updateRows(ctx, 'CreditAccount', [{ id, status }]);
  return findAccountOrThrow(ctx, id);
}

/** Unit labels of accounts (they never change, and accounts are never deleted), by tenant and id. */
const unitLabels = new Map<string, string>();
const MAX_UNIT_LABELS = 100_000;

/** An account's unit label; the account itself is read and checked under its lock by `post`. */
async function unitLabelOf(ctx: RequestContext, id: string): Promise<string> {
  const key = `${ctx.storeId}\u0000${ctx.mode}\u0000${id}`;
  const known = unitLabels.get(key);
  if (known) return known;
  const account = await findAccountOrThrow(ctx, id);
  assertOpen(account, ['id']);
  if (unitLabels.size >= MAX_UNIT_LABELS) unitLabels.clear();
  unitLabels.set(key, account.unitLabel);
  return account.unitLabel;
}

/** Credit (into the customer's account, out of the store's) or debit (the other way). */
export async function creditOrDebit(ctx: RequestContext, side: Side, input: CreditDebitInput): Promise<LedgerTransactionWithEntries> {
  return postAgainstStore(ctx, { id: input.id, unitLabel: await unitLabelOf(ctx, input.id) }, side, input.amount, {
    reference: input.reference,
    idempotencyKey: input.idempotency_key,
    requestHash: requestHash(`credits.${side}`, input),
    accountPath: ['id'],
    amountPath: ['amount'],
  });
}

export async function postTransaction(ctx: RequestContext, input: PostTransactionInput): Promise<LedgerTransactionWithEntries> {
  const postings: Posting[] = input.entries.map((e, i) => ({ accountId: e.account_id, side: e.side, amount: e.amount, accountPath: ['entries', i, 'account_id'], amountPath: ['entries', i, 'amount'] }));
  // Only customers' accounts are named here; the store's accounts move with credits and debits.
  const visible = new Set((await db(ctx).creditAccount.findMany({ where: { id: { in: postings.map((p) => p.accountId) }, ...CUSTOMER_ACCOUNT }, select: { id: true } })).map((a) => a.id));
  const unknown = postings.find((p) => !visible.has(p.accountId));
  if (unknown) throw new AppError('not_found', `Account ${unknown.accountId} not found`, [{ path: unknown.accountPath, message: `no account ${unknown.accountId} in this store and environment` }]);
  const { transaction } = await post(ctx, { reference: input.reference, idempotencyKey: input.idempotency_key, requestHash: requestHash('credits.post', input), postings });
  return transaction;
}

export async function findTransactionOrThrow(ctx: RequestContext, id: string): Promise<LedgerTransactionWithEntries> {
  const t = await db(ctx).ledgerTransaction.findUnique({ where: { id }, include: TRANSACTION_INCLUDE });
  if (!t) throw notFound('Transaction', id);
  return t;
}

/** The same list with a caller's selection (GraphQL). */
export function transactionsByReferenceSelecting(ctx: RequestContext, reference: string, selection: { include?: Prisma.LedgerTransactionInclude; select?: Prisma.LedgerTransactionSelect }) {
  return db(ctx).ledgerTransaction.findMany({ ...selection, where: { reference }, orderBy: { id: 'desc' }, take: 100 });
}

/** Transactions posted under a reference, newest first (at most 100; `has_more` says when there are more). */
export async function listTransactionsByReference(ctx: RequestContext, reference: string) {
  const rows = await db(ctx).ledgerTransaction.findMany({ where: { reference }, include: TRANSACTION_INCLUDE, orderBy: { id: 'desc' }, take: 101 });
  return { data: rows.slice(0, 100), has_more: rows.length > 100 };
}

/**
 * Undoes a transaction with a new one, every entry's side swapped (`reversal_of` names the
 * original, which is never changed). At most once: the original's row lock makes a second
 * reversal wait and then find the first. A reversal that would overdraw is refused.
 */
export async function reverseTransaction(ctx: RequestContext, id: string, onAccount?: string): Promise<LedgerTransactionWithEntries> {
  if (onAccount !== undefined) await findAccountOrThrow(ctx, onAccount);
  if (!(await lockRow(ctx, 'LedgerTransaction', id))) throw notFound('Transaction', id);
  const original = await findTransactionOrThrow(ctx, id);
  if (onAccount !== undefined && !original.entries.some((e) => e.accountId === onAccount)) {
    throw new AppError('not_found', `Transaction ${id} has no entry on account ${onAccount}`, [{ path: ['transaction_id'], message: `has no entry on account ${onAccount}` }]);
  }
  const reversal = await db(ctx).ledgerTransaction.findFirst({ where: { reversalOfId: id }, select: { id: true } });
  if (reversal) throw new AppError('already_reversed', `Transaction ${id} was already reversed by ${reversal.id}`, [{ path: [onAccount === undefined ? 'id' : 'transaction_id'], message: `was already reversed by ${reversal.id}` }]);
  const { transaction } = await post(ctx, {
    reference: original.reference,
    idempotencyKey: `reversal:${id}`,
    requestHash: requestHash('credits.reverse', { id }),
    reversalOfId: id,
    postings: original.entries.map((e) => {
      const at = [onAccount === undefined ? 'id' : 'transaction_id'];
      return { accountId: e.accountId, side: e.side === 'credit' ? 'debit' : 'credit', amount: e.amount, accountPath: at, amountPath: at };
    }),
  });
  return transaction;
}

export const reverseOnAccount = (ctx: RequestContext, input: ReverseOnAccountInput) => reverseTransaction(ctx, input.transaction_id, input.id);
