import { describe, expect, it } from 'vitest';
import { expectLedgerConsistent } from '../support/ledger-check.js';
import { creditsFixture } from '../support/credits-fixture.js';

/**
 * Customer credits under concurrent requests (a file of its own, so that it runs beside the
 * other credits tests): one idempotency key posts once, debits never overdraw, opposite
 * transfers never deadlock, and the ledger's invariants hold after each.
 */
describe('customer credits under concurrency', () => {
  const f = creditsFixture();
  const { key, account, balance } = f;

  it('posts once per idempotency key, also when ten requests with one key race; another request with the key is refused', async () => {
    const id = await account('Keyed', '0');
    const k = key();
    const answers = await Promise.all(Array.from({ length: 10 }, () => f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '7', reference: 'grant', idempotency_key: k })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.json.id)).size).toBe(1);
    expect(await balance(id)).toBe('7');
    const reused = await f.call('POST', `/v1/customer-credits/accounts/${id}/credit`, { amount: '8', reference: 'grant', idempotency_key: k });
    expect([reused.status, reused.json.error.code, reused.json.error.param]).toEqual([400, 'idempotency_key_reused', 'idempotency_key']);
    await expectLedgerConsistent(f.service.db);
  });

  it('100 concurrent debits of 1 against 50 leave exactly 50 successes and a balance of 0', async () => {
    const id = await account('Race', '50');
    const answers = await Promise.all(Array.from({ length: 100 }, () => f.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount: '1', reference: 'race', idempotency_key: key() })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(50);
    expect(answers.filter((a) => a.status === 409).every((a) => a.json.error.code === 'insufficient_balance')).toBe(true);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(50);
    expect(await balance(id)).toBe('0');
    await expectLedgerConsistent(f.service.db);
  });

  it('50 transfers each way between two accounts finish without deadlock', async () => {
    const [a, b] = [await account('Left', '1000'), await account('Right', '1000')];
    const transfer = (from: string, to: string) =>
      f.call('POST', '/v1/customer-credits/transactions', {
        reference: 'swap',
        idempotency_key: key(),
        entries: [
          { account_id: from, side: 'debit', amount: '3' },
          { account_id: to, side: 'credit', amount: '3' },
        ],
      });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? transfer(a, b) : transfer(b, a))));
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(201));
    expect([await balance(a), await balance(b)]).toEqual(['1000', '1000']);
    await expectLedgerConsistent(f.service.db);
  });
});
