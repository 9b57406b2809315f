import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';
import { expectLedgerConsistent } from '../support/ledger-check.js';

/** Products with a customerCredits feature grant through the ledger, with the payment, once per payment. */
describe('credits granted by purchases and renewals', () => {
  const h = billingHarness('Credit grants', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  const credits = (amount: string, bucket?: string) => [{ type: 'customerCredits', description: 'Credits', customer_credits: { amount, unit_label: 'images', ...(bucket ? { bucket_name: bucket } : {}) } }];
  const bucket = async (customerId: string, name: string) => {
    const list = (await h.call('GET', `/v1/customer-credits/accounts?customer_id=${customerId}&limit=100`)).json.data as { id: string; name: string }[];
    const account = list.find((a) => a.name === name);
    return account ? (await h.call('GET', `/v1/customer-credits/accounts/${account.id}/balance`)).json.balance : undefined;
  };

  it('a one-time purchase grants its credits into the named bucket, opened for it', async () => {
    const product = await makeProduct(await ctx(), { name: 'Image pack', price: 900, features: credits('250', 'images') });
    const paid = await makePaidCheckout(await ctx(), product.id);
    const customerId = paid.customer!.id;
    expect(await bucket(customerId, 'images')).toBe('250');
    // A second purchase by the same customer adds to the same bucket.
    await makePaidCheckout(await ctx(), product.id);
    expect(await bucket(customerId, 'images')).toBe('500');
    await expectLedgerConsistent(h.service.db);
  });

  it('a subscription grants at checkout and again at every paid renewal, into the default bucket', async () => {
    const product = await makeRecurringProduct(await ctx(), { name: 'Monthly credits', price: 1_000, features: credits('100') });
    const paid = await makePaidCheckout(await ctx(), product.id);
    const customerId = paid.customer!.id;
    expect(await bucket(customerId, 'default')).toBe('100');
    const end = (await h.call('GET', `/v1/subscriptions?subscription_id=${paid.subscription!.id}`)).json.current_period_end_date as string;
    const ran = await h.call('POST', '/v1/test-clock/advance', { to: new Date(Date.parse(end) + 1_000).toISOString() });
    expect(ran.json.ran).toMatchObject({ 'subscription.renew': 1 });
    expect(await bucket(customerId, 'default')).toBe('200');
    await expectLedgerConsistent(h.service.db);
    await expectEventsParse(h.service.db, ['credits.granted', 'subscription.paid']);
  });
});
