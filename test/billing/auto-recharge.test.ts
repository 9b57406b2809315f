import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';
import { expectLedgerConsistent } from '../support/ledger-check.js';

/** An account's auto-recharge rule buys credits with the saved card when a debit leaves it below the threshold. */
describe('credits auto-recharge', () => {
  const h = billingHarness('Auto-recharge', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  let n = 0;
  const debit = (id: string, amount: string) => h.call('POST', `/v1/customer-credits/accounts/${id}/debit`, { amount, reference: 'usage', idempotency_key: `use-${++n}` });
  const balance = async (id: string) => (await h.call('GET', `/v1/customer-credits/accounts/${id}/balance`)).json.balance;

  it('charges the saved card once for the rule’s product and grants the amount, with credits.auto_recharged', async () => {
    // A subscription saved the customer's card at checkout.
    const paid = await makePaidCheckout(await ctx(), (await makeRecurringProduct(await ctx(), { price: 1_000 })).id);
    const customerId = paid.customer!.id;
    const topUp = await makeProduct(await ctx(), { name: '200 credits', price: 500 });
    const account = (await h.call('POST', '/v1/customer-credits/accounts', { customer_id: customerId, name: 'api', initial_balance: '100' })).json;
    const rule = await h.call('POST', `/v1/customer-credits/accounts/${account.id}/auto-recharge`, { threshold: '50', amount: '200', product_id: topUp.id });
    expect(rule.json.auto_recharge).toEqual({ threshold: '50', amount: '200', product_id: topUp.id });

    // Two debits below the threshold before the job runs: one recharge.
    expect((await debit(account.id, '60')).status).toBe(201);
    expect((await debit(account.id, '5')).status).toBe(201);
    expect(await balance(account.id)).toBe('35');
    const ran = await h.call('POST', '/v1/test-clock/advance', { seconds: 1 });
    expect(ran.json.ran).toMatchObject({ 'credits.auto_recharge': 1 });
    expect(await balance(account.id)).toBe('235');
    const payments = await h.service.db.prisma.transaction.findMany({ where: { rechargeAccountId: account.id } });
    expect(payments.map((t) => [t.status, Number(t.amount)])).toEqual([['paid', 500]]);

    // Above the threshold: nothing more is bought.
    await debit(account.id, '10');
    expect((await h.call('POST', '/v1/test-clock/advance', { seconds: 1 })).json.ran['credits.auto_recharge'] ?? 0).toBe(0);
    expect(await balance(account.id)).toBe('225');
    await expectLedgerConsistent(h.service.db);
    await expectEventsParse(h.service.db, ['credits.auto_recharged', 'credits.granted', 'credits.consumed']);
  });

  it('refuses a rule priced by a recurring product, and can be cleared', async () => {
    const paid = await makePaidCheckout(await ctx(), (await makeRecurringProduct(await ctx(), { price: 1_000 })).id);
    const account = (await h.call('POST', '/v1/customer-credits/accounts', { customer_id: paid.customer!.id, name: 'api' })).json;
    const bad = await h.call('POST', `/v1/customer-credits/accounts/${account.id}/auto-recharge`, { threshold: '5', amount: '10', product_id: paid.productId });
    expect([bad.status, bad.json.error.param]).toEqual([400, 'product_id']);
    const topUp = await makeProduct(await ctx(), { price: 500 });
    await h.call('POST', `/v1/customer-credits/accounts/${account.id}/auto-recharge`, { threshold: '5', amount: '10', product_id: topUp.id });
    const cleared = await h.call('DELETE', `/v1/customer-credits/accounts/${account.id}/auto-recharge`);
    expect(cleared.json.auto_recharge).toBeNull();
    // The same through GraphQL: the mutation over the same operation, the rule on the account.
    const set = await h.call('POST', '/graphql', {
      query: 'mutation($id: ID!, $p: ID!) { setCreditAutoRecharge(input: { id: $id, threshold: "7", amount: "70", productId: $p }) { account { autoRecharge { threshold amount productId } } userErrors { field code } } }',
      variables: { id: account.id, p: topUp.id },
    });
    expect(set.json.data.setCreditAutoRecharge).toEqual({ account: { autoRecharge: { threshold: '7', amount: '70', productId: topUp.id } }, userErrors: [] });
    const clear = await h.call('POST', '/graphql', {
      query: 'mutation($id: ID!) { clearCreditAutoRecharge(input: { id: $id }) { account { autoRecharge { threshold } } userErrors { code } } }',
      variables: { id: account.id },
    });
    expect(clear.json.data.clearCreditAutoRecharge).toEqual({ account: { autoRecharge: null }, userErrors: [] });
  });
});
