import { describe, expect, it } from 'vitest';
import { setPaymentProcessor } from '../../src/modules/payments/processor.js';
import { DECLINES_LATER_CARD, simulatedProcessor } from '../../src/modules/payments/simulated-processor.js';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';

/** new × remaining / period − old × remaining / period, rounded half away from zero once: computed here independently. */
function prorated(oldAmount: number, newAmount: number, start: string, end: string, at: string): number {
  const remaining = BigInt(Date.parse(end) - Date.parse(at));
  const length = BigInt(Date.parse(end) - Date.parse(start));
  const n = BigInt(newAmount - oldAmount) * remaining;
  const q = (2n * (n < 0n ? -n : n) + length) / (2n * length);
  return Number(n < 0n ? -q : q);
}

describe('update and upgrade with proration', () => {
  const h = billingHarness('Proration', { storePerTest: true });

  /** A monthly subscription to a 10.00 plan (no tax: a US buyer), and a 30.00 plan to move to, ten days into the period. */
  async function midPeriod(card?: string) {
    const ctx = await withStoreClock(h.service.contextOf(h.store));
    const basic = await makeRecurringProduct(ctx, { name: 'Basic', price: 1_000 });
    const pro = await makeRecurringProduct(ctx, { name: 'Pro', price: 3_000 });
    const paid = await makePaidCheckout(ctx, basic.id, { buyer: { country: 'US', ...(card ? { card_number: card } : {}) } });
    const id = paid.subscription!.id;
    await h.call('POST', '/v1/test-clock/advance', { seconds: 10 * 86_400 + 12_345 });
    const s = (await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json;
    return { id, basic, pro, start: s.current_period_start_date as string, end: s.current_period_end_date as string };
  }
  const paidInvoices = async (id: string) => (await h.service.db.prisma.transaction.findMany({ where: { subscriptionId: id, status: 'paid' }, orderBy: { createdAt: 'asc' } })).map((t) => Number(t.amount));
  const renew = async (end: string) => (await h.call('POST', '/v1/test-clock/advance', { to: new Date(Date.parse(end) + 1_000).toISOString() })).json.ran;

  it('upgrade, charged now: the charge is exactly what the preview said, and the next invoice too', async () => {
    const { id, pro, start, end } = await midPeriod();
    const preview = (await h.call('POST', `/v1/subscriptions/${id}/upgrade/preview`, { product_id: pro.id })).json;
    const expected = prorated(1_000, 3_000, start, end, preview.proration_date);
    expect(expected).toBeGreaterThan(0);
    expect(preview).toMatchObject({ object: 'subscription_change_preview', proration_amount: expected, charge_now: { amount: expected }, next_invoice: { amount: 3_000 } });
    const upgraded = await h.client.subscriptions.upgrade(id, { productId: pro.id, updateBehavior: 'proration-charge-immediately', ...({ proration_date: preview.proration_date } as object) });
    expect(upgraded.status).toBe('active');
    // The official client drops fields it does not know (proration_date), so the change is priced a moment later: same formula, same second.
    const charged = (await paidInvoices(id)).slice(1);
    expect(charged).toHaveLength(1);
    expect(Math.abs(charged[0]! - expected)).toBeLessThanOrEqual(1);
    const exact = await h.call('GET', `/v1/subscriptions?subscription_id=${id}`);
    expect(exact.json.product.id).toBe(pro.id);
    expect(exact.json.current_period_end_date).toBe(end);
    await renew(end);
    expect((await paidInvoices(id)).slice(-1)).toEqual([3_000]);
  });

  it('the change at the preview’s proration_date charges exactly the preview, to the unit', async () => {
    const { id, pro } = await midPeriod();
    const preview = (await h.call('POST', `/v1/subscriptions/${id}/upgrade/preview`, { product_id: pro.id })).json;
    await h.call('POST', '/v1/test-clock/advance', { seconds: 3_600 });
    const res = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id, proration_date: preview.proration_date });
    expect(res.status, res.text).toBe(200);
    expect((await paidInvoices(id)).slice(1)).toEqual([preview.charge_now.amount]);
  });

  it('downgrade with proration-charge: a credit on the next invoice, which equals the preview', async () => {
    const { id, pro, start, end } = await midPeriod();
    const mid = await makeRecurringProduct(await withStoreClock(h.service.contextOf(h.store)), { name: 'Mid', price: 2_000 });
    // Onto Pro first (no proration), then down to Mid, the credit going to the next invoice.
    await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id, update_behavior: 'proration-none' });
    const preview = (await h.call('POST', `/v1/subscriptions/${id}/upgrade/preview`, { product_id: mid.id, update_behavior: 'proration-charge' })).json;
    const credit = prorated(3_000, 2_000, start, end, preview.proration_date);
    expect(credit).toBeLessThan(0);
    expect(preview).toMatchObject({ charge_now: { amount: 0 }, next_invoice: { amount: 2_000 + credit } });
    const res = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: mid.id, update_behavior: 'proration-charge', proration_date: preview.proration_date });
    expect(res.status, res.text).toBe(200);
    expect(await paidInvoices(id)).toEqual([1_000]);
    await renew(end);
    expect(await paidInvoices(id)).toEqual([1_000, 2_000 + credit]);
    // The credit was used up: the invoice after is the plain price.
    await renew((await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json.current_period_end_date);
    expect((await paidInvoices(id)).slice(-1)).toEqual([2_000]);
  });

  it('a credit larger than the next invoice makes it free and waits for the one after', async () => {
    const { id, basic, pro, end } = await midPeriod();
    await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id, update_behavior: 'proration-none' });
    const preview = (await h.call('POST', `/v1/subscriptions/${id}/upgrade/preview`, { product_id: basic.id, update_behavior: 'proration-charge' })).json;
    expect(preview.next_invoice.amount).toBe(0);
    expect(preview.proration_amount).toBeLessThan(-1_000);
    await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: basic.id, update_behavior: 'proration-charge', proration_date: preview.proration_date });
    await renew(end);
    await renew((await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json.current_period_end_date);
    expect(await paidInvoices(id)).toEqual([1_000, 0, 1_000 + 1_000 + preview.proration_amount]);
  });

  it('update units with proration-charge (the client’s default) and proration-none', async () => {
    const { id, start, end } = await midPeriod();
    const item = (await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json.items[0];
    const preview = (await h.call('POST', `/v1/subscriptions/${id}/upgrade/preview`, { units: 3, update_behavior: 'proration-charge' })).json;
    const res = await h.call('POST', `/v1/subscriptions/${id}`, { items: [{ id: item.id, units: 3 }], update_behavior: 'proration-charge', proration_date: preview.proration_date });
    expect(res.status, res.text).toBe(200);
    expect(res.json.items[0].units).toBe(3);
    const extra = prorated(1_000, 3_000, start, end, preview.proration_date);
    expect(preview.next_invoice.amount).toBe(3_000 + extra);
    const viaClient = await h.client.subscriptions.update(id, { items: [{ id: item.id, units: 4 }], updateBehavior: 'proration-none' });
    expect(viaClient.items?.[0]?.units).toBe(4);
    await renew(end);
    expect((await paidInvoices(id)).slice(-1)).toEqual([4_000 + extra]);
    expect((await h.call('POST', `/v1/subscriptions/${id}`, { items: [{ id: 'sitem_01HZZZZZZZZZZZZZZZZZZZZZZZ', units: 2 }] })).json.message).toEqual([expect.stringMatching(/^items\[0\]\.id: is not an item/)]);
  });

  it('a declined immediate charge changes nothing (402); impossible upgrades are refused naming the field', async () => {
    const { id, basic, pro } = await midPeriod(DECLINES_LATER_CARD);
    const declined = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id });
    expect(declined.status).toBe(402);
    expect(declined.json.code).toBe('card_declined');
    expect((await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json.product.id).toBe(basic.id);
    const ctx = await withStoreClock(h.service.contextOf(h.store));
    const usd = await makeRecurringProduct(ctx, { currency: 'USD' });
    const same = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: basic.id });
    expect(same.json.message).toEqual(['product_id: changes nothing: the subscription already has it']);
    expect((await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: usd.id })).json.message).toEqual([expect.stringMatching(/^product_id: must be priced in EUR/)]);
  });

  it('a change paid while the subscription changed meanwhile (canceled during the charge) is still recorded and applied', async () => {
    const { id, pro } = await midPeriod();
    // A processor that lets a cancellation happen while it charges.
    setPaymentProcessor('test', {
      ...simulatedProcessor,
      name: 'slow',
      charge: async (request) => {
        expect((await h.call('POST', `/v1/subscriptions/${id}/cancel`, { mode: 'immediate' })).status).toBe(200);
        return simulatedProcessor.charge(request);
      },
      lookup: (key) => simulatedProcessor.lookup(key),
      refund: (r) => simulatedProcessor.refund(r),
      lookupRefund: (key) => simulatedProcessor.lookupRefund(key),
    });
    try {
      const res = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ status: 'canceled', product: { id: pro.id } });
      const proration = await h.service.db.prisma.transaction.findMany({ where: { subscriptionId: id, attempt: null, checkoutId: null } });
      expect(proration.map((t) => t.status)).toEqual(['paid']);
    } finally {
      setPaymentProcessor('test', simulatedProcessor);
    }
  });

  it('two upgrades at once charge the proration once', async () => {
    const { id, pro } = await midPeriod();
    const answers = await Promise.all([h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id }), h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id })]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    // The other finds the change being charged (409) or already made (400), and charges nothing.
    expect(answers.filter((a) => a.status !== 200).map((a) => a.json.code)).toEqual([expect.stringMatching(/^(change_in_progress|validation_failed)$/)]);
    expect((await paidInvoices(id)).slice(1)).toHaveLength(1);
  });

  it('answers a retry with the same Idempotency-Key with the first answer, charging once, also when the retries race', async () => {
    const { id, pro } = await midPeriod();
    const key = { 'Idempotency-Key': `upgrade-${id}` };
    const first = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id }, key);
    expect(first.status, first.text).toBe(200);
    const retries = await Promise.all([1, 2, 3].map(() => h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id }, key)));
    for (const r of retries) expect(r.json).toEqual(first.json);
    expect((await paidInvoices(id)).slice(1)).toHaveLength(1);
    const events = await h.service.db.prisma.event.count({ where: { type: 'subscription.update', payload: { path: ['id'], equals: id } } });
    expect(events).toBe(1);
    // The same key with another change is refused; a new change needs a new key.
    const other = await h.call('POST', `/v1/subscriptions/${id}`, { items: [{ units: 2 }] }, key);
    expect([other.status, other.json.code]).toEqual([400, 'idempotency_key_reused']);

    // Racing first attempts: one runs, the others wait their turn (409, key in use) or get its answer.
    const { id: id2, pro: pro2 } = await midPeriod();
    const raceKey = { 'Idempotency-Key': `race-${id2}` };
    const raced = await Promise.all([1, 2, 3].map(() => h.call('POST', `/v1/subscriptions/${id2}/upgrade`, { product_id: pro2.id }, raceKey)));
    expect(raced.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of raced.filter((r) => r.status !== 200)) expect([r.status, r.json.code]).toEqual([409, 'idempotency_key_in_use']);
    expect((await paidInvoices(id2)).slice(1)).toHaveLength(1);
    const settled = await h.call('POST', `/v1/subscriptions/${id2}/upgrade`, { product_id: pro2.id }, raceKey);
    expect(settled.json).toEqual(raced.find((r) => r.status === 200)!.json);
  });

  it('remembers a refusal under its Idempotency-Key: a declined charge answers 402 again without charging again', async () => {
    const { id, pro } = await midPeriod(DECLINES_LATER_CARD);
    const key = { 'Idempotency-Key': `declined-${id}` };
    const first = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id }, key);
    expect([first.status, first.json.code]).toEqual([402, 'card_declined']);
    const declinedTries = () => h.service.db.prisma.transaction.count({ where: { subscriptionId: id, status: 'declined' } });
    expect(await declinedTries()).toBe(1);
    const retry = await h.call('POST', `/v1/subscriptions/${id}/upgrade`, { product_id: pro.id }, key);
    expect([retry.status, retry.json.code, retry.json.message]).toEqual([402, first.json.code, first.json.message]);
    expect(await declinedTries()).toBe(1);
  });

  it('runs through GraphQL: preview query and upgrade mutation agree', async () => {
    const { id, pro } = await midPeriod();
    const q = await h.call('POST', '/graphql', {
      query: 'query($id: ID!, $p: ID) { subscriptionChangePreview(id: $id, productId: $p) { prorationDate chargeNow { amount { amount } } } }',
      variables: { id, p: pro.id },
    });
    const preview = q.json.data.subscriptionChangePreview;
    const m = await h.call('POST', '/graphql', {
      query: 'mutation($i: UpgradeSubscriptionInput!) { upgradeSubscription(input: $i) { subscription { product { id } } userErrors { code } } }',
      variables: { i: { id, productId: pro.id, prorationDate: preview.prorationDate } },
    });
    expect(m.json.data.upgradeSubscription).toEqual({ subscription: { product: { id: pro.id } }, userErrors: [] });
    expect((await paidInvoices(id)).slice(1)).toEqual([Number(preview.chargeNow.amount.amount)]);
  });

  it('emits subscription.update bodies that parse with the official client’s models', async () => {
    await expectEventsParse(h.service.db, ['subscription.update']);
  });
});
