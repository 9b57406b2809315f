import { Creem } from 'creem';
import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';

/**
 * Store metrics (GET /v1/stats/summary) against figures worked out by hand for a store with
 * one-time sales, subscriptions of every interval, a discount, a refund and a canceled
 * subscription. Buyers are in the US (no tax), so net equals gross.
 */
describe('store metrics', () => {
  const h = billingHarness('Metrics', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  let n = 0;
  const buy = async (productId: string, checkout: Record<string, unknown> = {}) => makePaidCheckout(await ctx(), productId, { buyer: { email: `metrics-${++n}@example.com` }, checkout });

  it('counts, sums revenue net of refunds, and normalises MRR to a month; periods in buckets; the official client reads them', async () => {
    const oneTime = await makeProduct(await ctx(), { price: 1_000 });
    const monthly = await makeRecurringProduct(await ctx(), { price: 1_200 });
    const yearly = await makeRecurringProduct(await ctx(), { price: 12_000, billing_period: 'every-year' });
    const weekly = await makeRecurringProduct(await ctx(), { price: 700, billing_period: 'custom', recurring_interval: 'week', recurring_interval_count: 1 });
    const quarterly = await makeRecurringProduct(await ctx(), { price: 3_000, billing_period: 'every-three-months' });
    const discounted = await makeRecurringProduct(await ctx(), { price: 2_000 });
    const canceled = await makeRecurringProduct(await ctx(), { price: 500 });
    const discount = await h.call('POST', '/v1/discounts', { name: 'Tenth off', code: 'TENTH', type: 'percentage', percentage: 10, duration: 'forever', applies_to_products: [discounted.id] });
    expect(discount.status, discount.text).toBe(200);

    const first = await buy(oneTime.id);
    await buy(oneTime.id);
    for (const p of [monthly, yearly, weekly, quarterly]) await buy(p.id);
    await buy(discounted.id, { discount_code: 'TENTH' });
    const gone = await buy(canceled.id);
    expect((await h.call('POST', `/v1/subscriptions/${gone.subscription!.id}/cancel`, { mode: 'immediate' })).status).toBeLessThan(300);
    expect((await h.call('POST', '/v1/refunds', { transaction_id: first.order!.transactionId, amount: 300 })).status).toBeLessThan(300);

    // 8 payments: 1,000 × 2 + 1,200 + 12,000 + 700 + 3,000 + 1,800 (2,000 less 10 %) + 500 = 21,200; less the 300 refunded.
    // MRR of the 5 paying subscriptions: 1,200 + 12,000/12 + 700 × 52/12 + 3,000/3 + 1,800 = 8,033.33…, rounded once: 8,033.
    const expected = {
      totalProducts: 7,
      totalSubscriptions: 6,
      totalCustomers: 8,
      totalPayments: 8,
      activeSubscriptions: 5,
      totalRevenue: 20_900,
      totalNetRevenue: 20_900,
      monthlyRecurringRevenue: 8_033,
      netMonthlyRecurringRevenue: 8_033,
    };
    const all = await h.call('GET', '/v1/stats/summary?currency=EUR');
    expect(all.status, all.text).toBe(200);
    expect(all.json).toEqual({ totals: expected });
    // Another currency has no money; counts do not depend on it.
    expect((await h.call('GET', '/v1/stats/summary?currency=USD')).json.totals).toMatchObject({ totalPayments: 0, totalRevenue: 0, monthlyRecurringRevenue: 0, totalProducts: 7 });

    const now = Date.parse((await h.call('GET', '/v1/test-clock')).json.now);
    const day = 86_400_000;
    const start = Math.floor(now / day) * day - 2 * day;
    const client = new Creem({ apiKey: h.store.test_api_key, serverURL: h.service.testUrl });
    const summary = await client.stats.getSummary('EUR', start, now + day, 'day');
    expect(summary.totals).toEqual(expected);
    // The series starts at the first payment's day (today), not at startDate, and holds every payment and the refund.
    const today = Math.floor(now / day) * day;
    expect(summary.periods![0]!.timestamp).toBe(today);
    expect(summary.periods!.reduce((s, p) => s + p.grossRevenue, 0)).toBe(20_900);
    const gql = await h.call('POST', '/graphql', { query: `{ storeMetrics(currency: "EUR") { totals { totalRevenue monthlyRecurringRevenue activeSubscriptions } periods { start } } }` });
    expect(gql.json.data.storeMetrics).toEqual({ totals: { totalRevenue: '20900', monthlyRecurringRevenue: '8033', activeSubscriptions: 5 }, periods: null });
    // A range before any of it counts nothing but the products.
    const before = (await h.call('GET', `/v1/stats/summary?currency=EUR&startDate=${start - 10 * day}&endDate=${start}`)).json;
    expect(before.totals).toMatchObject({ totalPayments: 0, totalRevenue: 0, totalCustomers: 0, totalSubscriptions: 0, totalProducts: 7 });
  });

  it('refuses an interval without both dates, and dates the wrong way round, naming the field', async () => {
    for (const [query, param] of [
      ['currency=EUR&interval=day', 'interval'],
      ['currency=EUR&startDate=2000&endDate=1000', 'endDate'],
      ['currency=eur', 'currency'],
      ['', 'currency'],
    ] as const) {
      const res = await h.call('GET', `/v1/stats/summary?${query}`);
      expect([query, res.status, res.json.message?.[0]?.split(':')[0]]).toEqual([query, 400, param]);
    }
  });
});
