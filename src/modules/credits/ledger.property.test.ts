import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.js';
import { perform, storeContext, type TestContext } from '../../../test/support/context.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { makeCustomer } from '../../../test/support/factories.js';
import { expectLedgerConsistent } from '../../../test/support/ledger-check.js';
import { createAccountOp, creditAccountOp, debitAccountOp, postTransactionOp, reverseTransactionOp } from './credits.operations.js';
import { accountBalance } from './credits.service.js';

/**
 * Random sequences of credits, debits, multi-entry transactions and reversals against a model
 * of the balances: each step succeeds exactly when the model says it may, refusals change
 * nothing, and the ledger's invariants hold after every step.
 */
type Step =
  | { kind: 'credit' | 'debit'; account: number; amount: number }
  | { kind: 'post'; moves: { from: number; to: number; amount: number }[] }
  | { kind: 'reverse'; pick: number };

const ACCOUNTS = 3;
const account = fc.integer({ min: 0, max: ACCOUNTS - 1 });
const amount = fc.integer({ min: 1, max: 40 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('credit' as const, 'debit' as const), account, amount }),
  fc.record({ kind: fc.constant('post' as const), moves: fc.array(fc.record({ from: account, to: account, amount }), { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('reverse' as const), pick: fc.nat() }),
);

describe('ledger properties', () => {
  let db: TestDatabase;
  let ctx: TestContext;
  let n = 0;

  beforeAll(async () => {
    db = await openTestDatabase();
    ctx = await storeContext(db);
  });
  afterAll(() => db?.close());

  it('keeps balances exact, never below zero, and every transaction balanced, whatever the sequence', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const customer = await makeCustomer(ctx);
        const ids: string[] = [];
        for (let i = 0; i < ACCOUNTS; i++) ids.push((await perform(ctx, createAccountOp, { customer_id: customer.id, name: `bucket ${i}`, unit_label: 'units', initial_balance: '20' })).id);
        const model = ids.map(() => 20n);
        // Posted transactions (reversible ones): their net effect per account, and whether reversed.
        const posted: { id: string; net: bigint[]; reversed: boolean }[] = [];
        const attempt = async (run: () => Promise<{ id: string }>, net: bigint[]) => {
          const allowed = model.every((b, i) => b + net[i]! >= 0n);
          try {
            const t = await run();
            expect(allowed, 'the ledger accepted what would overdraw').toBe(true);
            net.forEach((d, i) => (model[i]! += d));
            return t;
          } catch (err) {
            expect(err instanceof AppError && err.code === 'insufficient_balance', String(err)).toBe(true);
            expect(allowed, 'the ledger refused what the balances allow').toBe(false);
            return null;
          }
        };
        for (const s of steps) {
          const key = `prop-${++n}`;
          if (s.kind === 'credit' || s.kind === 'debit') {
            const net = ids.map((_, i) => (i === s.account ? (s.kind === 'credit' ? 1n : -1n) * BigInt(s.amount) : 0n));
            const op = s.kind === 'credit' ? creditAccountOp : debitAccountOp;
            const t = await attempt(() => perform(ctx, op, { id: ids[s.account], amount: String(s.amount), reference: 'prop', idempotency_key: key }), net);
            if (t) posted.push({ id: t.id, net, reversed: false });
          } else if (s.kind === 'post') {
            const net = ids.map(() => 0n);
            const entries = s.moves.flatMap((m) => {
              net[m.from]! -= BigInt(m.amount);
              net[m.to]! += BigInt(m.amount);
              return [
                { account_id: ids[m.from], side: 'debit', amount: String(m.amount) },
                { account_id: ids[m.to], side: 'credit', amount: String(m.amount) },
              ];
            });
            const t = await attempt(() => perform(ctx, postTransactionOp, { reference: 'prop', idempotency_key: key, entries }), net);
            if (t) posted.push({ id: t.id, net, reversed: false });
          } else if (s.kind === 'reverse') {
            const open = posted.filter((p) => !p.reversed);
            if (!open.length) continue;
            const target = open[s.pick % open.length]!;
            const t = await attempt(() => perform(ctx, reverseTransactionOp, { id: target.id }), target.net.map((d) => -d));
            if (t) target.reversed = true;
          }
          for (const [i, id] of ids.entries()) expect((await accountBalance(ctx, { id })).balance).toBe(model[i]);
          await expectLedgerConsistent(db);
        }
      }),
      { numRuns: 12 },
    );
  });
});
