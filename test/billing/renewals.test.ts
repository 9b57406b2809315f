import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { DECLINES_LATER_CARD } from '../../src/modules/payments/simulated-processor.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';

/**
 * Recurring billing driven by the test clock, as a seller tests it: buy, move the store's
 * clock, and read what the API says was charged.
 */
describe('renewals and dunning', () => {
  const h = billingHarness('Renewals', { storePerTest: true });

  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  const advanceTo = async (iso: string | Date) => {
    const res = await h.call('POST', '/v1/test-clock/advance', { to: typeof iso === 'string' ? iso : iso.toISOString() });
    expect(res.status, res.text).toBe(200);
    return res.json as { now: string; ran: Record<string, number> };
  };
  const subscription = async (id: string) => (await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json;
  const invoices = async (id: string) =>
    (await h.service.db.prisma.transaction.findMany({ where: { subscriptionId: id }, orderBy: { createdAt: 'asc' } })).map((t) => ({
      amount: Number(t.amount),
      discount: Number(t.discountAmount),
      tax: Number(t.taxAmount),
      status: t.status,
      start: t.periodStart?.toISOString().slice(0, 10),
      end: t.periodEnd?.toISOString().slice(0, 10),
    }));
  const eventTypes = async (subscriptionId: string) =>
    (await h.service.db.prisma.event.findMany({ where: { storeId: h.store.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }))
      .filter((e) => (e.payload as { id?: string }).id === subscriptionId)
      .map((e) => e.type);

  it('renews a monthly subscription twelve times with exact amounts, anchored on the 31st', async () => {
    await advanceTo('2027-01-31T10:00:00.000Z');
    const product = await makeRecurringProduct(await ctx(), { price: 1999, tax_mode: 'exclusive' });
    const paid = await makePaidCheckout(await ctx(), product.id, { buyer: { country: 'DE' } });
    const id = paid.subscription!.id;
    const ends: string[] = [];
    for (let i = 0; i < 12; i++) {
      const s = await subscription(id);
      ends.push(s.current_period_end_date.slice(0, 10));
      const step = await advanceTo(new Date(Date.parse(s.current_period_end_date) + 1_000));
      expect(step.ran).toEqual({ 'subscription.renew': 1 });
    }
    expect(ends).toEqual(['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31', '2027-08-31', '2027-09-30', '2027-10-31', '2027-11-30', '2027-12-31', '2028-01-31']);
    const all = await invoices(id);
    expect(all).toHaveLength(13);
    // 19.99 EUR + 19% German VAT (3.80) each time, every period paid once.
    for (const t of all) expect(t).toMatchObject({ amount: 2379, tax: 380, discount: 0, status: 'paid' });
    expect(all.slice(1).map((t) => t.start)).toEqual(ends);
    const s = await subscription(id);
    expect(s).toMatchObject({ status: 'active', current_period_start_date: expect.stringMatching(/^2028-01-31/), current_period_end_date: expect.stringMatching(/^2028-02-29/) });
    expect(s.next_transaction_date).toBe(s.current_period_end_date);
    const events = await eventTypes(id);
    expect(events.filter((e) => e === 'subscription.paid')).toHaveLength(13);
    // Nothing more is due until the next period ends: moving the clock a little runs nothing.
    expect((await advanceTo(new Date(Date.parse(s.current_period_end_date) - 60_000))).ran).toEqual({});
  });

  it('applies a repeating 3-month discount to exactly the first three invoices', async () => {
    const product = await makeRecurringProduct(await ctx(), { price: 1000 });
    const discount = await h.call('POST', '/v1/discounts', { name: 'Three months', code: `THREE${Date.now()}`, type: 'percentage', percentage: 25, duration: 'repeating', duration_in_months: 3 });
    expect(discount.status, discount.text).toBe(200);
    const paid = await makePaidCheckout(await ctx(), product.id, { checkout: { discount_code: discount.json.code }, buyer: { country: 'US' } });
    const id = paid.subscription!.id;
    for (let i = 0; i < 4; i++) await advanceTo(new Date(Date.parse((await subscription(id)).current_period_end_date) + 1_000));
    expect((await invoices(id)).map((t) => [t.amount, t.discount])).toEqual([
      [750, 250],
      [750, 250],
      [750, 250],
      [1000, 0],
      [1000, 0],
    ]);
  });

  it('ends a trial by charging the first period: trialing, then active and paid', async () => {
    const product = await makeRecurringProduct(await ctx(), { price: 1500, trial_period_days: 7 });
    const paid = await makePaidCheckout(await ctx(), product.id, { buyer: { country: 'US' } });
    const id = paid.subscription!.id;
    const trialing = await subscription(id);
    expect(trialing.status).toBe('trialing');
    const step = await advanceTo(new Date(Date.parse(trialing.current_period_end_date) + 1_000));
    expect(step.ran).toEqual({ 'subscription.renew': 1 });
    const active = await subscription(id);
    expect(active.status).toBe('active');
    expect(Date.parse(active.current_period_start_date)).toBe(Date.parse(trialing.current_period_end_date));
    expect((await invoices(id)).map((t) => [t.amount, t.status])).toEqual([
      [0, 'paid'],
      [1500, 'paid'],
    ]);
    expect(await eventTypes(id)).toEqual(['subscription.trialing', 'subscription.active', 'subscription.paid']);
  });

  it('card 0341: past due, retried on days 1, 3, 5 and 7, then unpaid and no longer charged', async () => {
    const product = await makeRecurringProduct(await ctx(), { price: 1200 });
    const paid = await makePaidCheckout(await ctx(), product.id, { buyer: { country: 'US', card_number: DECLINES_LATER_CARD } });
    const id = paid.subscription!.id;
    const end = Date.parse((await subscription(id)).current_period_end_date);
    await advanceTo(new Date(end + 1_000));
    expect(await subscription(id)).toMatchObject({ status: 'past_due' });
    const statuses: string[] = [];
    for (const day of [1, 3, 5, 7]) {
      // Just before the retry nothing runs; just after it, one try.
      expect((await advanceTo(new Date(end + day * 86_400_000 - 60_000))).ran).toEqual({});
      expect((await advanceTo(new Date(end + day * 86_400_000 + 60_000))).ran).toEqual({ 'subscription.renew': 1 });
      statuses.push((await subscription(id)).status);
    }
    expect(statuses).toEqual(['past_due', 'past_due', 'past_due', 'unpaid']);
    const tries = (await invoices(id)).slice(1);
    expect(tries.map((t) => t.status)).toEqual(['declined', 'declined', 'declined', 'declined', 'declined']);
    expect(new Set(tries.map((t) => t.start)).size).toBe(1);
    expect(await eventTypes(id)).toEqual(['subscription.active', 'subscription.paid', 'subscription.past_due', 'subscription.expired', 'subscription.unpaid']);
    // Unpaid is final: a month later nothing is tried.
    expect((await advanceTo(new Date(end + 40 * 86_400_000))).ran).toEqual({});
    expect(await invoices(id)).toHaveLength(6);
  });

  it('card 0341 past due: a new card on the portal page pays what is due at once, and later renewals charge it', async () => {
    const product = await makeRecurringProduct(await ctx(), { price: 1200 });
    const paid = await makePaidCheckout(await ctx(), product.id, { buyer: { country: 'US', card_number: DECLINES_LATER_CARD } });
    const id = paid.subscription!.id;
    const end = Date.parse((await subscription(id)).current_period_end_date);
    await advanceTo(new Date(end + 1_000));
    expect((await subscription(id)).status).toBe('past_due');

    const link = (await h.call('POST', '/v1/customers/billing', { customer_id: paid.customer!.id })).json.customer_portal_link as string;
    const page = await fetch(link);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const html = await page.text();
    expect(html).toContain('Pay what is due');
    const action = /<form class="card-form" method="post" action="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const submit = (card: string) =>
      fetch(new URL(action, link), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ csrf, card_number: card, card_expiry: '12/34', card_cvc: '123' }),
      });
    const declined = await submit('4000000000000002');
    expect(declined.status).toBe(402);
    expect((await subscription(id)).status).toBe('past_due');
    const ok = await submit('4242424242424242');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('Payment received');
    const active = await subscription(id);
    expect(active.status).toBe('active');
    expect(Date.parse(active.current_period_start_date)).toBe(end);
    // The next renewal charges the new card: paid, not declined.
    await advanceTo(new Date(Date.parse(active.current_period_end_date) + 1_000));
    expect((await invoices(id)).map((t) => t.status)).toEqual(['paid', 'declined', 'declined', 'paid', 'paid']);
    const types = await eventTypes(id);
    expect(types.slice(-3)).toEqual(['subscription.active', 'subscription.paid', 'subscription.paid']);
    // A forged form (no anti-forgery token) charges nothing.
    const forged = await fetch(new URL(action, link), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'card_number=4242424242424242&card_expiry=12/34&card_cvc=123' });
    expect(forged.status).toBe(403);
  });

  it('emits events whose bodies parse with the official client’s models', async () => {
    await expectEventsParse(h.service.db, ['subscription.paid', 'subscription.active', 'subscription.trialing', 'subscription.past_due', 'subscription.expired', 'subscription.unpaid']);
  });
});
