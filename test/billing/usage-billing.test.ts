import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';
import { expectLedgerConsistent } from '../support/ledger-check.js';

/**
 * Usage billed at renewal: what a customer consumed through a product's metered prices in a
 * period goes on the invoice that renews it, beyond the allowance, rounded once, held to the
 * cap; prepaid usage settles from credits first. Prices are tax-inclusive here, so the usage
 * adds exactly its amount to the invoice.
 */
describe('usage billed at renewal', () => {
  const h = billingHarness('Usage billing', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  const invoices = async (subscriptionId: string) =>
    (await h.service.db.prisma.transaction.findMany({ where: { subscriptionId }, orderBy: { createdAt: 'asc' } })).map((t) => ({ amount: Number(t.amount), description: t.description, status: t.status }));
  const meter = async (body: Record<string, unknown>) => {
    const res = await h.call('POST', '/v1/meters', body);
    expect(res.status, res.text).toBe(201);
    return res.json.id as string;
  };
  const ingest = async (events: Record<string, unknown>[]) => expect((await h.call('POST', '/v1/events/ingest', { events })).status).toBe(202);
  /** Moves the clock just past the latest current period end of the subscriptions: each renews once. */
  const renew = async (...subscriptionIds: string[]) => {
    const ends = await Promise.all(subscriptionIds.map(async (id) => Date.parse((await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json.current_period_end_date as string)));
    const ran = await h.call('POST', '/v1/test-clock/advance', { to: new Date(Math.max(...ends) + 1_000).toISOString() });
    expect(ran.json.ran).toMatchObject({ 'subscription.renew': subscriptionIds.length });
  };

  it('bills units beyond the free allowance at the unit price, rounded once, and holds a period to its cap', async () => {
    const tokens = await meter({ name: 'Tokens', event_name: 'llm.tokens', aggregation: 'sum', aggregation_property: 'tokens', unit_label: 'tokens' });
    const product = await makeRecurringProduct(await ctx(), {
      name: 'API plan',
      price: 1_000,
      tax_mode: 'inclusive',
      usage_prices: [{ meter_id: tokens, unit_price: 0.002, free_allowance: 1_000, cap: 5_000, settlement_mode: 'postpaid' }],
    });
    const light = await makePaidCheckout(await ctx(), product.id, { buyer: { email: 'light@example.com' } });
    const heavy = await makePaidCheckout(await ctx(), product.id, { buyer: { email: 'heavy@example.com' } });
    // 1,501,250 tokens: 1,500,250 beyond the allowance × 0.002 = 3,000.5, rounded once to 3,001.
    await ingest([1_000, 500_000, 1_000_250].map((n, i) => ({ name: 'llm.tokens', customer_id: light.customer!.id, event_id: `light-${i}`, properties: { tokens: n } })));
    await ingest([{ name: 'llm.tokens', customer_id: heavy.customer!.id, event_id: 'heavy', properties: { tokens: 9_000_000 } }]);
    await renew(light.subscription!.id, heavy.subscription!.id);
    const [firstLight, renewalLight] = await invoices(light.subscription!.id);
    expect(renewalLight!.amount - firstLight!.amount).toBe(3_001);
    expect(renewalLight!.description).toContain('Tokens: 1500250 tokens');
    const [firstHeavy, renewalHeavy] = await invoices(heavy.subscription!.id);
    expect(renewalHeavy!.amount - firstHeavy!.amount).toBe(5_000);
    expect([renewalLight!.status, renewalHeavy!.status]).toEqual(['paid', 'paid']);
    // Usage of the new period starts from zero: the next renewal bills nothing more.
    await renew(light.subscription!.id, heavy.subscription!.id);
    expect((await invoices(light.subscription!.id))[2]!.amount).toBe(firstLight!.amount);
  });

  it('settles prepaid usage from the credit account of the meter’s unit first, and bills what credits did not cover', async () => {
    const calls = await meter({ name: 'Calls', event_name: 'api.call', aggregation: 'count', unit_label: 'calls' });
    const product = await makeRecurringProduct(await ctx(), { name: 'Prepaid plan', price: 2_000, tax_mode: 'inclusive', usage_prices: [{ meter_id: calls, unit_price: 7, settlement_mode: 'prepaid' }] });
    const paid = await makePaidCheckout(await ctx(), product.id);
    const customerId = paid.customer!.id;
    const account = (await h.call('POST', '/v1/customer-credits/accounts', { customer_id: customerId, name: 'API calls', unit_label: 'calls', initial_balance: '3' })).json.id as string;
    await ingest(Array.from({ length: 5 }, (_, i) => ({ name: 'api.call', customer_id: customerId, event_id: `call-${i}` })));
    await renew(paid.subscription!.id);
    expect((await h.call('GET', `/v1/customer-credits/accounts/${account}/balance`)).json.balance).toBe('0');
    const [first, renewal] = await invoices(paid.subscription!.id);
    expect(renewal!.amount - first!.amount).toBe(2 * 7);
    expect(renewal!.description).toContain('Calls: 3 calls from credits');
    await expectLedgerConsistent(h.service.db);
    await expectEventsParse(h.service.db, ['credits.consumed', 'customer_credits.exhausted']);
  });

  it('bills nothing for usage during a trial with trial_usage_mode free, and bills it with accrue', async () => {
    const seats = await meter({ name: 'Renders', event_name: 'render', aggregation: 'count', unit_label: 'renders' });
    const price = (mode: string) => [{ meter_id: seats, unit_price: 10, settlement_mode: 'postpaid', trial_usage_mode: mode }];
    const free = await makeRecurringProduct(await ctx(), { name: 'Trial free', price: 1_500, tax_mode: 'inclusive', trial_period_days: 7, usage_prices: price('free') });
    const accrue = await makeRecurringProduct(await ctx(), { name: 'Trial accrue', price: 1_500, tax_mode: 'inclusive', trial_period_days: 7, usage_prices: price('accrue') });
    const a = await makePaidCheckout(await ctx(), free.id, { buyer: { email: 'trial-free@example.com' } });
    const b = await makePaidCheckout(await ctx(), accrue.id, { buyer: { email: 'trial-accrue@example.com' } });
    for (const [who, n] of [[a, 3], [b, 4]] as const) {
      await ingest(Array.from({ length: n }, (_, i) => ({ name: 'render', customer_id: who.customer!.id, event_id: `${who.id}-${i}` })));
    }
    await renew(a.subscription!.id, b.subscription!.id);
    expect((await invoices(a.subscription!.id)).map((t) => t.amount)).toEqual([0, 1_500]);
    expect((await invoices(b.subscription!.id)).map((t) => t.amount)).toEqual([0, 1_500 + 4 * 10]);
  });
});
