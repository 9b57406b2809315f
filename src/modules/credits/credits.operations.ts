import { defineOperation } from '../../core/operation.js';
import {
  accountIdSchema,
  balanceSchema,
  byReferenceSchema,
  createAccountSchema,
  creditDebitSchema,
  listAccountsSchema,
  listEntriesSchema,
  postTransactionSchema,
  reverseOnAccountSchema,
  setAutoRechargeSchema,
  transactionIdSchema,
} from './credits.schemas.js';
import { clearAutoRecharge, setAutoRecharge } from './auto-recharge.js';
import { cursorPageOf } from '../../lib/response-schemas.js';
import {
  accountResponseDto,
  balanceResponseDto,
  entryResponseDto,
  listOf,
  serializeAccount,
  serializeBalance,
  serializeEntry,
  serializeTransaction,
  transactionResponseDto,
} from './credits.serializer.js';
import {
  accountBalance,
  changeAccountStatus,
  createAccount,
  creditOrDebit,
  findAccountOrThrow,
  findTransactionOrThrow,
  listAccounts,
  listEntries,
  listTransactionsByReference,
  postTransaction,
  reverseOnAccount,
  reverseTransaction,
} from './credits.service.js';

/**
 * The fifteen customer-credits operations. Postings carry their own `idempotency_key` (the
 * client requires it): a retry finds the first transaction inside the ledger's own
 * transaction. The account writes also honour the Idempotency-Key header like every write.
 * Credit, debit and a multi-entry transaction are writes in `steps`: their one write is the
 * posting, a single atomic statement (ledger.ts `post`), so no interactive transaction is held
 * open around it and an account's lock lasts only as long as that statement.
 */
const account = (_ctx: unknown, a: Parameters<typeof serializeAccount>[0]) => serializeAccount(a);
const transaction = (_ctx: unknown, t: Parameters<typeof serializeTransaction>[0]) => serializeTransaction(t);

export const createAccountOp = defineOperation({ name: 'credits.create_account', summary: 'Create a customer credits account', description: 'Answers 201. A customer has one account per `name`; an optional `initial_balance` is credited in the same transaction, and an existing account of that name is refused (409 `account_exists`).', input: createAccountSchema, write: true, output: accountResponseDto, run: createAccount, render: account });
export const getAccountOp = defineOperation({ name: 'credits.get_account', summary: 'Retrieve a customer credits account', input: accountIdSchema, write: false, output: accountResponseDto, run: (ctx, i) => findAccountOrThrow(ctx, i.id), render: account });
export const listAccountsOp = defineOperation({
  name: 'credits.list_accounts',
  summary: 'List customer credits accounts',
  description: 'Optionally for one `customer_id`; system accounts are excluded. Paged by cursor: `limit` (at most 100), `starting_after` or `ending_before`.',
  input: listAccountsSchema,
  write: false,
  output: cursorPageOf(accountResponseDto),
  run: listAccounts,
  render: (_ctx, page) => listOf(page, serializeAccount),
  idOf: () => null,
});
export const accountBalanceOp = defineOperation({ name: 'credits.balance', summary: "Get an account's balance", description: 'The current balance, or with `at` the balance after the last entry up to that instant.', input: balanceSchema, write: false, output: balanceResponseDto, run: accountBalance, render: (_ctx, b) => serializeBalance(b), idOf: () => null });
export const listEntriesOp = defineOperation({ name: 'credits.list_entries', summary: "List an account's entries", description: 'The credit and debit history of the account. Paged by cursor: `limit` (at most 100), `starting_after` or `ending_before`.', input: listEntriesSchema, write: false, output: cursorPageOf(entryResponseDto), run: listEntries, render: (_ctx, page) => listOf(page, serializeEntry), idOf: () => null });
export const freezeAccountOp = defineOperation({ name: 'credits.freeze', summary: 'Freeze an account', description: 'A frozen account takes no new transactions; freezing a frozen account changes nothing.', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'freeze'), render: account });
export const unfreezeAccountOp = defineOperation({ name: 'credits.unfreeze', summary: 'Unfreeze an account', description: 'A frozen account takes transactions again; unfreezing an active account changes nothing.', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'unfreeze'), render: account });
export const closeAccountOp = defineOperation({ name: 'credits.close', summary: 'Close an account', description: 'Permanent: only an account at a zero balance can be closed (409 `balance_not_zero` otherwise), and a closed account cannot be reopened.', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'close'), render: account });
export const creditAccountOp = defineOperation({ name: 'credits.credit', summary: 'Credit an account', description: 'Answers 201 with the transaction. Amounts are strings of digits; a retry with the same `idempotency_key` and request gets the first transaction.', input: creditDebitSchema, write: 'steps', output: transactionResponseDto, run: (ctx, i) => creditOrDebit(ctx, 'credit', i), render: transaction });
export const debitAccountOp = defineOperation({ name: 'credits.debit', summary: 'Debit an account', description: 'Answers 201 with the transaction; a debit beyond the balance is refused (409 `insufficient_balance`). A retry with the same `idempotency_key` and request gets the first transaction.', input: creditDebitSchema, write: 'steps', output: transactionResponseDto, run: (ctx, i) => creditOrDebit(ctx, 'debit', i), render: transaction });
export const postTransactionOp = defineOperation({ name: 'credits.post_transaction', summary: 'Post a multi-entry transaction', description: 'Answers 201. Two to 100 entries whose debits and credits must balance; a retry with the same `idempotency_key` and request gets the first transaction.', input: postTransactionSchema, write: 'steps', output: transactionResponseDto, run: postTransaction, render: transaction });
export const getTransactionOp = defineOperation({ name: 'credits.get_transaction', summary: 'Retrieve a credits transaction', input: transactionIdSchema, write: false, output: transactionResponseDto, run: (ctx, i) => findTransactionOrThrow(ctx, i.id), render: transaction });
export const listByReferenceOp = defineOperation({
  name: 'credits.list_by_reference',
  summary: 'List transactions by reference',
  description: 'Transactions posted under `reference`, newest first, at most 100 (`has_more` says when there are more).',
  input: byReferenceSchema,
  write: false,
  output: cursorPageOf(transactionResponseDto),
  run: (ctx, i) => listTransactionsByReference(ctx, i.reference),
  render: (_ctx, page) => listOf(page, serializeTransaction),
  idOf: () => null,
});
export const reverseOnAccountOp = defineOperation({ name: 'credits.reverse_on_account', summary: 'Reverse a transaction on an account', description: 'Answers 201 with a new transaction that undoes the original, which must have an entry on this account; a transaction reversed once is refused (409 `already_reversed`).', input: reverseOnAccountSchema, write: true, output: transactionResponseDto, run: reverseOnAccount, render: transaction });
export const reverseTransactionOp = defineOperation({ name: 'credits.reverse', summary: 'Reverse a transaction', description: 'Answers 201 with a new transaction that undoes the original, keeping the history; a transaction reversed once is refused (409 `already_reversed`).', input: transactionIdSchema, write: true, output: transactionResponseDto, run: (ctx, i) => reverseTransaction(ctx, i.id), render: transaction });

/** This service's extension: the account's auto-recharge rule (set, or cleared). */
export const setAutoRechargeOp = defineOperation({ name: 'credits.set_auto_recharge', summary: "Set an account's auto-recharge rule", description: "When a debit leaves the balance below `threshold`, `amount` credits are bought off-session with the customer's saved card at the price of the one-time product `product_id`. Replaces any earlier rule.", input: setAutoRechargeSchema, write: true, output: accountResponseDto, run: setAutoRecharge, render: account });
export const clearAutoRechargeOp = defineOperation({ name: 'credits.clear_auto_recharge', summary: "Clear an account's auto-recharge rule", input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => clearAutoRecharge(ctx, i.id), render: account });
