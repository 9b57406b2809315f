import { apiEnum, builder, MODE_DESCRIPTION, ModeEnum } from '../../graphql/builder.js';
import { operationMutation, payloadType } from '../../graphql/mutation.js';
import {
  clearAutoRechargeOp,
  closeAccountOp,
  createAccountOp,
  creditAccountOp,
  debitAccountOp,
  freezeAccountOp,
  postTransactionOp,
  reverseOnAccountOp,
  reverseTransactionOp,
  setAutoRechargeOp,
  unfreezeAccountOp,
} from './credits.operations.js';
import { LEDGER_SIDES } from './credits.schemas.js';
import { accountBalance, transactionsByReferenceSelecting } from './credits.service.js';

const CreditAccountStatusEnum = apiEnum('CreditAccountStatus', ['active', 'frozen', 'closed'] as const, '`frozen`: no new transactions until unfrozen; `closed`: for good');
const LedgerSideEnum = apiEnum('LedgerSide', LEDGER_SIDES, '`credit` adds to the account, `debit` takes from it');
const AMOUNT = 'A positive decimal integer as a string, up to 9223372036854775807';

const AutoRechargeRef = builder.objectRef<{ threshold: bigint; amount: bigint; productId: string }>('CreditAutoRecharge').implement({
  description: 'An account’s auto-recharge rule: credits bought with the customer’s saved card when a debit leaves the balance below the threshold',
  fields: (t) => ({
    threshold: t.field({ type: 'MinorUnits', description: 'A debit leaving the balance below this many credits buys more', resolve: (r) => r.threshold }),
    amount: t.field({ type: 'MinorUnits', description: 'Credits bought each time', resolve: (r) => r.amount }),
    productId: t.exposeID('productId', { description: 'The one-time product whose price each recharge charges' }),
  }),
});

builder.prismaNode('CreditAccount', {
  id: { field: 'id', description: 'The /v1 id (cca_…)' },
  nullable: true,
  description: "A customer's credit bucket (prepaid API calls, tokens, minutes) in the double-entry ledger",
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    name: t.exposeString('name', { description: 'Unique per customer, compared without regard to case' }),
    unitLabel: t.exposeString('unitLabel', { description: 'What one credit is (calls, tokens, minutes)' }),
    status: t.field({ type: CreditAccountStatusEnum, description: 'Active, frozen or closed', select: { status: true }, resolve: (a) => a.status }),
    // The running balance lives on the account row: a page of accounts reads its balances in
    // the same query as the accounts, with no query per account.
    balance: t.field({ type: 'MinorUnits', description: 'Credits minus debits of all entries, kept on the account with every posting', select: { balance: true }, resolve: (a) => a.balance }),
    balanceAt: t.field({
      type: 'MinorUnits',
      description: 'The balance at an instant, from the entries (the balance after the last entry up to then)',
      args: { at: t.arg({ type: 'DateTime', required: true, description: 'The instant to read the balance at' }) },
      select: { id: true },
      resolve: async (a, args, ctx) => (await accountBalance(ctx.core, { id: a.id, at: args.at })).balance,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the account was opened' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the account last changed (a posting, a status, its rule)' }),
    autoRecharge: t.field({
      type: AutoRechargeRef,
      nullable: true,
      description: 'Credits bought with the saved card when a debit leaves the balance below the threshold',
      select: { rechargeThreshold: true, rechargeAmount: true, rechargeProductId: true },
      resolve: (a) => (a.rechargeThreshold !== null && a.rechargeAmount !== null && a.rechargeProductId ? { threshold: a.rechargeThreshold, amount: a.rechargeAmount, productId: a.rechargeProductId } : null),
    }),
    customer: t.relation('customer', { nullable: true, description: 'The customer whose credits these are; null for a store counter-account' }),
    entries: t.relatedConnection('entries', { cursor: 'id', totalCount: true, description: 'The history, newest first', query: { orderBy: { id: 'desc' } } }),
  }),
});

builder.prismaNode('LedgerTransaction', {
  id: { field: 'id', description: 'The /v1 id (cct_…)' },
  name: 'CreditTransaction',
  nullable: true,
  description: 'Balanced entries posted at once: its debits equal its credits',
  fields: (t) => ({
    mode: t.expose('mode', { type: ModeEnum, description: MODE_DESCRIPTION }),
    reference: t.exposeString('reference', { description: 'Your reference (an order id, a usage period); several transactions may share it' }),
    idempotencyKey: t.exposeString('idempotencyKey', { description: 'The key it was posted under: a retry with it gets this transaction' }),
    reversalOf: t.relation('reversalOf', { nullable: true, description: 'The transaction this one undoes' }),
    reversedBy: t.relation('reversedBy', { nullable: true, description: 'The transaction that undid this one' }),
    entries: t.relation('entries', { description: 'Its entries, in the order posted', query: { orderBy: { id: 'asc' } } }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was posted' }),
  }),
});

builder.prismaObject('LedgerEntry', {
  name: 'CreditEntry',
  description: 'One side of a transaction on one account, with the balance right after it',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The /v1 id (cce_…)' }),
    side: t.field({ type: LedgerSideEnum, description: 'Credit (adds) or debit (takes)', select: { side: true }, resolve: (e) => e.side }),
    amount: t.field({ type: 'MinorUnits', description: 'Credits moved, positive (a count of credits, not money)', select: { amount: true }, resolve: (e) => e.amount }),
    balanceAfter: t.field({ type: 'MinorUnits', description: 'The account’s balance right after this entry', select: { balanceAfter: true }, resolve: (e) => e.balanceAfter }),
    account: t.relation('account', { description: 'The account it moved' }),
    transaction: t.relation('transaction', { description: 'The transaction it is part of' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was posted' }),
  }),
});

builder.prismaObjectFields('Customer', (t) => ({
  creditAccounts: t.relatedConnection('creditAccounts', { cursor: 'id', totalCount: true, description: "The customer's credit buckets, newest first", query: { orderBy: { id: 'desc' } } }),
}));

builder.queryField('creditTransactionsByReference', (t) =>
  t.prismaField({
    type: ['LedgerTransaction'],
    description: 'Transactions posted under a reference, newest first (at most 100)',
    args: { reference: t.arg.string({ required: true, description: 'The reference given when posting' }) },
    resolve: (query, _root, args, ctx) => transactionsByReferenceSelecting(ctx.core, args.reference, query),
  }),
);

const AccountPayload = payloadType('CreditAccountPayload', 'account', 'CreditAccount', 'The account');
const TransactionPayload = payloadType('CreditTransactionPayload', 'transaction', 'LedgerTransaction', 'The transaction posted (the first one, on a retry with its idempotency key)');
const AccountIdInput = (name: string) => builder.inputType(name, { description: 'The credit account to act on', fields: (t) => ({ id: t.id({ required: true, description: 'cca_…' }) }) });

operationMutation('createCreditAccount', {
  op: createAccountOp,
  input: builder.inputType('CreateCreditAccountInput', {
    description: 'A new credit bucket for a customer',
    fields: (t) => ({
      customerId: t.id({ required: true, description: 'The customer (cust_…)' }),
      name: t.string({ required: false, description: 'Default "default"' }),
      unitLabel: t.string({ required: false, description: 'Default "credits"' }),
      initialBalance: t.string({ required: false, description: `${AMOUNT}; credited from the store's account` }),
    }),
  }),
  payload: AccountPayload,
  description: "Opens a credit bucket for a customer, optionally seeded",
});

const CreditDebitInput = (name: string) =>
  builder.inputType(name, {
    description: 'Credits to move between a customer account and the store',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The account, cca_…' }),
      amount: t.string({ required: true, description: AMOUNT }),
      reference: t.string({ required: true, description: 'Your reference (an order id, a usage period)' }),
      idempotencyKey: t.string({ required: true, description: 'A retry with the same key and request gets the first transaction' }),
    }),
  });

operationMutation('creditCreditAccount', { op: creditAccountOp, input: CreditDebitInput('CreditCreditAccountInput'), payload: TransactionPayload, description: "Adds credits to a customer's account (from the store's account)" });
operationMutation('debitCreditAccount', {
  op: debitAccountOp,
  input: CreditDebitInput('DebitCreditAccountInput'),
  payload: TransactionPayload,
  description: "Takes credits from a customer's account; refused whole (insufficient_balance) when it would go below zero",
});

operationMutation('postCreditTransaction', {
  op: postTransactionOp,
  input: builder.inputType('PostCreditTransactionInput', {
    description: 'Entries to post at once; their debits must equal their credits',
    fields: (t) => ({
      reference: t.string({ required: true, description: 'Your reference (an order id, a usage period)' }),
      idempotencyKey: t.string({ required: true, description: 'A retry with the same key and request gets the first transaction' }),
      entries: t.field({
        required: true,
        description: 'The entries, each on a customer account',
        type: [
          builder.inputType('CreditEntryInput', {
            description: 'One side of the transaction on one account',
            fields: (f) => ({
              accountId: f.id({ required: true, description: 'The account (cca_…)' }),
              side: f.field({ type: LedgerSideEnum, required: true, description: 'credit adds to the account, debit takes from it' }),
              amount: f.string({ required: true, description: AMOUNT }),
            }),
          }),
        ],
      }),
    }),
  }),
  payload: TransactionPayload,
  description: 'Posts entries on several accounts at once; total debits must equal total credits (unbalanced_transaction)',
});

operationMutation('reverseCreditTransaction', {
  op: reverseTransactionOp,
  input: builder.inputType('ReverseCreditTransactionInput', { description: 'The transaction to undo', fields: (t) => ({ id: t.id({ required: true, description: 'cct_…' }) }) }),
  payload: TransactionPayload,
  description: 'Undoes a transaction with a new one, every side swapped; at most once',
});

operationMutation('reverseCreditAccountTransaction', {
  op: reverseOnAccountOp,
  input: builder.inputType('ReverseCreditAccountTransactionInput', {
    description: 'An account and a transaction that moved it, to undo',
    fields: (t) => ({ id: t.id({ required: true, description: 'The account, cca_…' }), transactionId: t.id({ required: true, description: 'A transaction with an entry on the account' }) }),
  }),
  payload: TransactionPayload,
  description: 'Undoes a transaction that moved this account, as reverseCreditTransaction does',
});

operationMutation('freezeCreditAccount', { op: freezeAccountOp, input: AccountIdInput('FreezeCreditAccountInput'), payload: AccountPayload, description: 'No new transactions on the account until unfrozen' });
operationMutation('unfreezeCreditAccount', { op: unfreezeAccountOp, input: AccountIdInput('UnfreezeCreditAccountInput'), payload: AccountPayload, description: 'Allows transactions again' });
operationMutation('closeCreditAccount', { op: closeAccountOp, input: AccountIdInput('CloseCreditAccountInput'), payload: AccountPayload, description: 'Closes the account for good; only at a balance of zero' });

operationMutation('setCreditAutoRecharge', {
  op: setAutoRechargeOp,
  input: builder.inputType('SetCreditAutoRechargeInput', {
    description: 'The auto-recharge rule of an account',
    fields: (t) => ({
      id: t.id({ required: true, description: 'The account (cca_…)' }),
      threshold: t.string({ required: true, description: 'A debit leaving the balance below this buys more' }),
      amount: t.string({ required: true, description: AMOUNT }),
      productId: t.id({ required: true, description: 'An active one-time product: its price is charged each time' }),
    }),
  }),
  payload: AccountPayload,
  description: "Sets the account's auto-recharge rule (this service's extension)",
});

operationMutation('clearCreditAutoRecharge', { op: clearAutoRechargeOp, input: AccountIdInput('ClearCreditAutoRechargeInput'), payload: AccountPayload, description: "Removes the account's auto-recharge rule" });
