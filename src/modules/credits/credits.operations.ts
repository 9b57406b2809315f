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

export const createAccountOp = defineOperation({ name: 'credits.create_account', input: createAccountSchema, write: true, output: accountResponseDto, run: createAccount, render: account });
export const getAccountOp = defineOperation({ name: 'credits.get_account', input: accountIdSchema, write: false, output: accountResponseDto, run: (ctx, i) => findAccountOrThrow(ctx, i.id), render: account });
export const listAccountsOp = defineOperation({
  name: 'credits.list_accounts',
  input: listAccountsSchema,
  write: false,
  output: cursorPageOf(accountResponseDto),
  run: listAccounts,
  render: (_ctx, page) => listOf(page, serializeAccount),
  idOf: () => null,
});
export const accountBalanceOp = defineOperation({ name: 'credits.balance', input: balanceSchema, write: false, output: balanceResponseDto, run: accountBalance, render: (_ctx, b) => serializeBalance(b), idOf: () => null });
export const listEntriesOp = defineOperation({ name: 'credits.list_entries', input: listEntriesSchema, write: false, output: cursorPageOf(entryResponseDto), run: listEntries, render: (_ctx, page) => listOf(page, serializeEntry), idOf: () => null });
export const freezeAccountOp = defineOperation({ name: 'credits.freeze', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'freeze'), render: account });
export const unfreezeAccountOp = defineOperation({ name: 'credits.unfreeze', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'unfreeze'), render: account });
export const closeAccountOp = defineOperation({ name: 'credits.close', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => changeAccountStatus(ctx, i.id, 'close'), render: account });
export const creditAccountOp = defineOperation({ name: 'credits.credit', input: creditDebitSchema, write: 'steps', output: transactionResponseDto, run: (ctx, i) => creditOrDebit(ctx, 'credit', i), render: transaction });
export const debitAccountOp = defineOperation({ name: 'credits.debit', input: creditDebitSchema, write: 'steps', output: transactionResponseDto, run: (ctx, i) => creditOrDebit(ctx, 'debit', i), render: transaction });
export const postTransactionOp = defineOperation({ name: 'credits.post_transaction', input: postTransactionSchema, write: 'steps', output: transactionResponseDto, run: postTransaction, render: transaction });
export const getTransactionOp = defineOperation({ name: 'credits.get_transaction', input: transactionIdSchema, write: false, output: transactionResponseDto, run: (ctx, i) => findTransactionOrThrow(ctx, i.id), render: transaction });
export const listByReferenceOp = defineOperation({
  name: 'credits.list_by_reference',
  input: byReferenceSchema,
  write: false,
  output: cursorPageOf(transactionResponseDto),
  run: (ctx, i) => listTransactionsByReference(ctx, i.reference),
  render: (_ctx, page) => listOf(page, serializeTransaction),
  idOf: () => null,
});
export const reverseOnAccountOp = defineOperation({ name: 'credits.reverse_on_account', input: reverseOnAccountSchema, write: true, output: transactionResponseDto, run: reverseOnAccount, render: transaction });
export const reverseTransactionOp = defineOperation({ name: 'credits.reverse', input: transactionIdSchema, write: true, output: transactionResponseDto, run: (ctx, i) => reverseTransaction(ctx, i.id), render: transaction });

/** This service's extension: the account's auto-recharge rule (set, or cleared). */
export const setAutoRechargeOp = defineOperation({ name: 'credits.set_auto_recharge', input: setAutoRechargeSchema, write: true, output: accountResponseDto, run: setAutoRecharge, render: account });
export const clearAutoRechargeOp = defineOperation({ name: 'credits.clear_auto_recharge', input: accountIdSchema, write: true, output: accountResponseDto, run: (ctx, i) => clearAutoRecharge(ctx, i.id), render: account });
