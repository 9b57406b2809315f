import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { acceptAffiliateInvite } from '../../src/modules/affiliates/affiliate-invitations.js';
import { makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';
import { api } from '../support/service.js';

/**
 * Splits applied to money: every paid transaction records an allocation per recipient of the
 * splits that cover it, in integer minor units of its net amount, apportioned by largest
 * remainder so that the parts and the seller's share equal the net amount exactly; refunds
 * reverse them in proportion, and a full refund reverses them exactly.
 */
describe('splits applied to money', () => {
  const h = billingHarness('Split money', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  const allocationsOf = (transactionId: string) => h.service.db.prisma.splitAllocation.findMany({ where: { transactionId }, orderBy: { id: 'asc' } });
  const newStores = async (n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await h.service.createStore(`Recipient ${i}`)).id);
    return ids;
  };
  const split = async (body: Record<string, unknown>) => {
    const res = await h.call('POST', '/v1/splits', body);
    expect(res.status, res.text).toBe(200);
    return res.json.id as string;
  };
  const buy = async (productId: string, email = 'buyer@example.com') => {
    const checkout = await makePaidCheckout(await ctx(), productId, { buyer: { email } });
    return h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: checkout.order!.transactionId! } });
  };

  it('apportions payments among 10 recipients exactly, on amounts of 1, 3 and 99,999', async () => {
    const stores = await newStores(10);
    const shares = [1, 1.5, 3.33, 7.77, 9.99, 10, 11.11, 12.5, 13.13, 14.29];
    await split({ type: 'store', type_reference: h.store.id, recipients: stores.map((id, i) => ({ recipient_type: 'store', recipient_reference: id, amount: shares[i] })) });
    // Prices start at 100; a fixed discount brings the payment down to 1 and 3.
    for (const [price, off] of [[100, 99], [100, 97], [99_999, 0]] as const) {
      const product = (await makeProduct(await ctx(), { price, tax_mode: 'inclusive' })).id;
      let code: string | undefined;
      if (off) {
        const discount = await h.call('POST', '/v1/discounts', { name: `Less ${off}`, code: `LESS${off}`, type: 'fixed', amount: off, currency: 'EUR', duration: 'once' });
        expect(discount.status, discount.text).toBe(200);
        code = discount.json.code as string;
      }
      const checkout = await makePaidCheckout(await ctx(), product, { buyer: { email: `buyer-${price - off}@example.com` }, ...(code ? { checkout: { discount_code: code } } : {}) });
      const t = await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: checkout.order!.transactionId! } });
      expect(t.amount).toBe(BigInt(price - off));
      const net = t.amount - t.taxAmount;
      const rows = await allocationsOf(t.id);
      const byStore = new Map(rows.map((r) => [r.recipientStoreId, r.amount]));
      const parts = [...stores.map((id) => byStore.get(id) ?? 0n)];
      const seller = net - parts.reduce((a, b) => a + b, 0n);
      // Every part, the seller's included, is within one unit of its exact share; together they are the net amount.
      const weights = [...shares.map((s) => BigInt(Math.round(s * 100))), 100_00n - BigInt(Math.round(shares.reduce((a, b) => a + b, 0) * 100))];
      [...parts, seller].forEach((part, i) => {
        const exactTimes10k = net * weights[i]!;
        expect([t.amount, i, part * 100_00n - exactTimes10k < 100_00n && exactTimes10k - part * 100_00n < 100_00n]).toEqual([t.amount, i, true]);
      });
      expect(seller).toBeGreaterThanOrEqual(0n);
      expect(rows.every((r) => r.amount > 0n && r.currency === t.currency && stores.includes(r.recipientStoreId))).toBe(true);
    }
  });

  it('reverses allocations in proportion on refunds, exactly once the whole payment is refunded', async () => {
    const [a, b] = await newStores(2);
    await split({ type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: a, amount: 33.33 }, { recipient_type: 'store', recipient_reference: b, amount: 16.67 }] });
    const t = await buy((await makeProduct(await ctx(), { price: 99_999, tax_mode: 'inclusive' })).id);
    const original = await allocationsOf(t.id);
    const net = t.amount - t.taxAmount;
    // 33.33 % and 16.67 % of the net amount, each within one unit of its exact share.
    expect(original.map((r) => r.recipientStoreId)).toEqual([a, b]);
    original.forEach((r, i) => {
      const exactTimes10k = net * [33_33n, 16_67n][i]!;
      expect(r.amount * 100_00n - exactTimes10k < 100_00n && exactTimes10k - r.amount * 100_00n < 100_00n).toBe(true);
    });
    const refund = async (amount?: number) => {
      const res = await h.call('POST', '/v1/refunds', { transaction_id: t.id, ...(amount ? { amount } : {}) });
      expect(res.status, res.text).toBeLessThan(300);
    };
    await refund(33_333);
    const afterFirst = await allocationsOf(t.id);
    const reversedOf = (rows: typeof afterFirst, store: string) => rows.filter((r) => r.recipientStoreId === store && r.refundId !== null).reduce((s, r) => s + r.amount, 0n);
    const originalOf = (store: string) => original.find((r) => r.recipientStoreId === store)!.amount;
    // A third of the payment back: a third of each allocation back, to the unit.
    for (const store of [a!, b!]) {
      const exact = (originalOf(store) * 33_333n) / t.amount;
      expect([store, -reversedOf(afterFirst, store) - exact <= 1n && exact - -reversedOf(afterFirst, store) <= 1n]).toEqual([store, true]);
    }
    await refund(t.amount > 33_333n ? Number(t.amount - 33_333n) : undefined);
    const afterAll = await allocationsOf(t.id);
    for (const store of [a!, b!]) expect([store, originalOf(store) + reversedOf(afterAll, store)]).toEqual([store, 0n]);
  });

  it('ten concurrent partial refunds reverse the allocations and the commission exactly, never more', async () => {
    const [a] = await newStores(1);
    await split({ type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: a, amount: 33.33 }] });
    const invite = (await h.call('POST', '/v1/affiliates/invites', { email: 'refunds@example.com', name: 'Refunds' })).json.id as string;
    const affiliate = await acceptAffiliateInvite(await ctx(), invite, null);
    // Tax-inclusive at 19 %: each tenth refunded carries an awkward share of the net amount.
    const product = await makeProduct(await ctx(), { price: 10_000, tax_mode: 'inclusive' });
    const checkout = await makePaidCheckout(await ctx(), product.id, { buyer: { email: 'many-refunds@example.com', country: 'DE' }, checkout: { affiliate_code: affiliate.referralCode } });
    const t = await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: checkout.order!.transactionId! } });
    const commissionsOf = () => h.service.db.prisma.affiliateCommission.findMany({ where: { transactionId: t.id } });
    const [allocated] = await allocationsOf(t.id);
    const [commission] = await commissionsOf();
    expect([allocated!.amount > 0n, commission!.amount > 0n]).toEqual([true, true]);
    // Twenty refunds of a tenth each, all at once: ten of them fit, whichever they are.
    const amounts = Array.from({ length: 10 }, () => Number(t.amount / 10n));
    const answers = await Promise.all([...amounts, ...amounts].map((amount) => h.call('POST', '/v1/refunds', { transaction_id: t.id, amount })));
    expect(answers.filter((r) => r.status === 200).map((r) => r.json.refund_amount as number).reduce((x, y) => x + y, 0)).toBe(Number(t.amount));
    const allocations = await allocationsOf(t.id);
    const commissions = await commissionsOf();
    // Everything reversed to the unit, and no reversal twice: one row per refund at most.
    expect(allocations.reduce((x, r) => x + r.amount, 0n)).toBe(0n);
    expect(commissions.reduce((x, c) => x + c.amount, 0n)).toBe(0n);
    expect(allocations.every((r) => r.refundId === null || r.amount < 0n)).toBe(true);
    expect(new Set(allocations.filter((r) => r.refundId).map((r) => r.refundId)).size).toBe(allocations.filter((r) => r.refundId).length);
    expect(new Set(commissions.filter((c) => c.refundId).map((c) => c.refundId)).size).toBe(commissions.filter((c) => c.refundId).length);
  });

  it('allocates nothing once a split is deleted, and a product split only to its product, renewals included', async () => {
    const [a, b] = await newStores(2);
    const storeSplit = await split({ type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: a, amount: 10 }] });
    const plan = await makeRecurringProduct(await ctx(), { name: 'Plan', price: 2_000, tax_mode: 'inclusive' });
    const other = await makeProduct(await ctx(), { price: 500, tax_mode: 'inclusive' });
    await split({ type: 'product', type_reference: plan.id, recipients: [{ recipient_type: 'store', recipient_reference: b, amount: 20 }] });
    const subscribed = await makePaidCheckout(await ctx(), plan.id, { buyer: { email: 'subscriber@example.com' } });
    const first = await allocationsOf(subscribed.order!.transactionId!);
    expect(first.map((r) => [r.recipientStoreId, r.amount])).toEqual([
      [a, 200n],
      [b, 400n],
    ]);
    const oneTime = await buy(other.id, 'other@example.com');
    expect((await allocationsOf(oneTime.id)).map((r) => [r.recipientStoreId, r.amount])).toEqual([[a, 50n]]);

    expect((await h.call('DELETE', `/v1/splits/${storeSplit}`)).status).toBe(200);
    expect(await allocationsOf((await buy(other.id, 'later@example.com')).id)).toEqual([]);
    // The renewal of the plan still pays the product split, not the deleted store split.
    const end = (await h.call('GET', `/v1/subscriptions?subscription_id=${subscribed.subscription!.id}`)).json.current_period_end_date as string;
    expect((await h.call('POST', '/v1/test-clock/advance', { to: new Date(Date.parse(end) + 1_000).toISOString() })).json.ran).toMatchObject({ 'subscription.renew': 1 });
    const renewal = await h.service.db.prisma.transaction.findFirstOrThrow({ where: { subscriptionId: subscribed.subscription!.id, id: { not: subscribed.order!.transactionId! } } });
    expect(renewal.status).toBe('paid');
    expect((await allocationsOf(renewal.id)).map((r) => [r.recipientStoreId, r.amount])).toEqual([[b, 400n]]);
  });

  it('shows the recipient store what it receives (REST extension and GraphQL, its own key and environment only), and the paying store on the transaction', async () => {
    const recipient = await h.service.createStore('Receiving store');
    const bystander = await h.service.createStore('Bystander');
    await split({ type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: recipient.id, amount: 25 }] });
    const t = await buy((await makeProduct(await ctx(), { price: 4_000, tax_mode: 'inclusive' })).id);
    const expected = (t.amount - t.taxAmount) / 4n;
    const asRecipient = api(h.service.testUrl, recipient.test_api_key);
    const incoming = (await asRecipient('GET', '/v1/splits/allocations/incoming')).json;
    expect(incoming.items).toEqual([expect.objectContaining({ object: 'split_allocation', payer_store_id: h.store.id, recipient_store_id: recipient.id, transaction_id: t.id, amount: Number(expected), currency: t.currency, refund_id: null })]);
    expect(incoming.pagination.total_records).toBe(1);
    const gql = await asRecipient('POST', '/graphql', { query: '{ incomingSplitAllocations(first: 10) { totalCount edges { node { payerStoreId amount transactionId } } } }' });
    expect(gql.json.data.incomingSplitAllocations).toEqual({ totalCount: 1, edges: [{ node: { payerStoreId: h.store.id, amount: String(expected), transactionId: t.id } }] });
    // Not in the other environment, not to another store.
    expect((await api(h.service.prodUrl, recipient.prod_api_key)('GET', '/v1/splits/allocations/incoming')).json.items).toEqual([]);
    expect((await api(h.service.testUrl, bystander.test_api_key)('GET', '/v1/splits/allocations/incoming')).json.items).toEqual([]);
    const payer = await h.call('POST', '/graphql', { query: `{ node(id: "${t.id}") { ... on Transaction { splitAllocations { recipientStoreId amount refundId } } } }` });
    expect(payer.json.data.node.splitAllocations).toEqual([{ recipientStoreId: recipient.id, amount: String(expected), refundId: null }]);
  });
});
