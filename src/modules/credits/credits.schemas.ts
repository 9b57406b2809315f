import { z } from 'zod';
import { cursorQuery } from '../../lib/pagination.js';
import { isoDateOrDay, requiredText, resourceId } from '../../lib/schemas.js';

/** The largest amount and balance a ledger keeps: its columns are 64-bit integers. */
export const MAX_LEDGER_AMOUNT = 2n ** 63n - 1n;

/**
 * A ledger amount: a positive decimal integer carried as a string (the client's models), up to
 * 2^63-1. Written plainly: no sign, no leading zeros, no fraction or exponent. `allowZero`:
 * "0" too (an account's initial balance).
 */
function ledgerDigits(allowZero: boolean) {
  return z.string({ error: 'must be a string of digits, e.g. "100"' }).transform((s, ctx) => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    if (!/^[0-9]+$/.test(s)) return fail('must be a whole number written with digits only: no sign, spaces, fraction or exponent, e.g. "100"');
    if (s === '0' && allowZero) return 0n;
    if (s.startsWith('0')) return fail(allowZero ? 'must be written without leading zeros' : 'must be at least 1, written without leading zeros');
    if (s.length >= 20 || BigInt(s) > MAX_LEDGER_AMOUNT) return fail(`must be at most ${MAX_LEDGER_AMOUNT}`);
    return BigInt(s);
  });
}

export const ledgerAmount = ledgerDigits(false);

const text = requiredText;

/** A Stripe-style key: a retry with the same key and request gets the first transaction. */
const idempotencyKey = text(255);
const reference = text(255);

export const accountIdSchema = z.object({ id: resourceId });

export const createAccountSchema = z.object({
  customer_id: resourceId,
  name: text(100).default('default'),
  unit_label: text(50).default('credits'),
  initial_balance: ledgerDigits(true).optional(),
});
export type CreateAccountInput = z.output<typeof createAccountSchema>;

export const listAccountsSchema = z.object({ customer_id: resourceId.optional(), ...cursorQuery });
export type ListAccountsInput = z.output<typeof listAccountsSchema>;

export const balanceSchema = z.object({ id: resourceId, at: isoDateOrDay.optional() });
export type BalanceInput = z.output<typeof balanceSchema>;

export const listEntriesSchema = z.object({ id: resourceId, ...cursorQuery });
export type ListEntriesInput = z.output<typeof listEntriesSchema>;

export const creditDebitSchema = z.object({ id: resourceId, amount: ledgerAmount, reference, idempotency_key: idempotencyKey });
export type CreditDebitInput = z.output<typeof creditDebitSchema>;

export const LEDGER_SIDES = ['debit', 'credit'] as const;

export const postTransactionSchema = z.object({
  reference,
  idempotency_key: idempotencyKey,
  entries: z
    .array(z.object({ account_id: resourceId, side: z.enum(LEDGER_SIDES), amount: ledgerAmount }))
    .min(2, 'must have at least 2 entries')
    .max(100, 'must have at most 100 entries'),
});
export type PostTransactionInput = z.output<typeof postTransactionSchema>;

export const reverseOnAccountSchema = z.object({ id: resourceId, transaction_id: resourceId });
export type ReverseOnAccountInput = z.output<typeof reverseOnAccountSchema>;

export const transactionIdSchema = z.object({ id: resourceId });

export const byReferenceSchema = z.object({ reference });

/** This service's extension: an account's auto-recharge rule. */
export const setAutoRechargeSchema = z.object({
  id: resourceId,
  threshold: ledgerDigits(true),
  amount: ledgerAmount,
  product_id: resourceId,
});
export type SetAutoRechargeInput = z.output<typeof setAutoRechargeSchema>;
