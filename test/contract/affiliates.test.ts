import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { newId } from '../../src/lib/ids.js';
import { paymentProcessorFor } from '../../src/modules/payments/processor.js';
import { settleRefundJob } from '../../src/modules/refunds/refunds.service.js';
import { billingHarness } from '../support/billing-harness.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';
import { makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { api } from '../support/service.js';

/**
 * Affiliates over /v1 and the pages: the official client's five affiliates* operations (it
 * validates every answer against its models), joining through the signed invitation page,
 * and the money: a referral link's visitor buys, the affiliate earns the program's rate of
 * the net amount on the purchase and its renewals, and refunds reverse it in proportion.
 */
describe('affiliates', () => {
  const h = billingHarness('Affiliate seller', { storePerTest: true });
  const ctx = () => withStoreClock(h.service.contextOf(h.store));
  const DAY = 24 * 60 * 60 * 1000;

  /** Invites through the client and joins through the invitation page, as the invitee would. */
  const join = async (email: string, name = 'Ann Affiliate') => {
    const invite = await h.client.affiliates.createInvite({ email, name });
    const url = (await h.call('GET', '/v1/affiliates/invites')).json.items.find((i: { id: string }) => i.id === invite.id).invite_url as string;
    const browser = new CheckoutBrowser(h.service.testUrl);
    const page = await browser.get(url);
    expect(page.status, page.html).toBe(200);
    const accepted = await browser.postForm(action(page.html, 'accept'), { csrf: CheckoutBrowser.hidden(page.html, 'csrf'), name });
    expect(accepted.status, accepted.html).toBe(200);
    const code = /Your referral code is ([0-9A-Z]+)\./.exec(accepted.html)![1]!;
    const affiliate = (await h.client.affiliates.list()).result.items.find((a) => a.referralCode === code)!;
    return { invite, affiliate, code };
  };
  const csrfOf = (html: string, form: string) => new RegExp(`id="${form}">\\s*<input type="hidden" name="csrf" value="([^"]+)"`).exec(html)![1]!;
  const action = (html: string, form: string) => new RegExp(`action="([^"]+)" id="${form}"`).exec(html)![1]!.replaceAll('&amp;', '&');
  const commissions = async (id: string, status?: 'pending' | 'approved' | 'paid') => (await h.client.affiliates.listCommissions(id, status, 1, 100)).result.items;

  it('invites, lists, joins through the page and retrieves through the official client', async () => {
    const invite = await h.client.affiliates.createInvite({ email: 'Ann@Example.com', name: 'Ann' });
    expect(invite).toMatchObject({ object: 'affiliate_invite', mode: 'test', email: 'ann@example.com', name: 'Ann', status: 'pending' });
    const listed = (await h.client.affiliates.listInvites(1, 10)).result;
    expect(listed.items.map((i) => [i.id, i.status])).toEqual([[invite.id, 'pending']]);
    expect(listed.pagination).toMatchObject({ totalRecords: 1, currentPage: 1 });
    // Invited but not joined: not an affiliate yet.
    expect((await h.client.affiliates.list()).result.items).toEqual([]);

    const invitation = (await h.call('GET', '/v1/affiliates/invites')).json.items[0];
    const browser = new CheckoutBrowser(h.service.testUrl);
    const page = await browser.get(invitation.invite_url);
    expect(page.html).toContain('20 %');
    // A tampered link opens nothing.
    const tampered = invitation.invite_url.replace(/signature=(.)/, (_m: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`);
    expect((await browser.get(tampered)).status).toBe(403);
    const joined = await browser.postForm(action(page.html, 'accept'), { csrf: CheckoutBrowser.hidden(page.html, 'csrf'), name: 'Ann Lee' });
    expect(joined.status, joined.html).toBe(200);
    // Answered once: the second answer changes nothing.
    expect((await browser.postForm(action(page.html, 'decline'), { csrf: csrfOf(page.html, 'decline') })).status).toBe(409);

    const [affiliate] = (await h.client.affiliates.list(1, 10)).result.items;
    expect(affiliate).toMatchObject({ object: 'affiliate', mode: 'test', email: 'ann@example.com', name: 'Ann Lee', status: 'active', clicks: 0, conversions: 0, earnings: 0 });
    expect(affiliate!.referralCode).toMatch(/^[0-9A-Z]{8}$/);
    expect(affiliate!.referralLink).toBe(`${h.service.testUrl}/r/${affiliate!.referralCode}`);
    expect(await h.client.affiliates.retrieve(affiliate!.id)).toEqual(affiliate);
    expect((await h.client.affiliates.listInvites()).result.items[0]).toMatchObject({ id: invite.id, status: 'accepted' });
    expect(await commissions(affiliate!.id)).toEqual([]);
  });

  it('refuses bad invitations naming the field, and keeps other stores’ affiliates invisible', async () => {
    const { affiliate, code } = await join('bob@example.com');
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'not-an-address', name: 'X' }, 'email'],
      [{ email: 'x@example.com' }, 'name'],
      [{ email: 'x@example.com', name: 'X', program_id: 'aprg_01JZZZZZZZZZZZZZZZZZZZZZZZ' }, 'program_id'],
      [{ email: 'BOB@example.com', name: 'Bob again' }, 'email'],
    ];
    await h.call('POST', '/v1/affiliates/invites', { email: 'carol@example.com', name: 'Carol' });
    cases.push([{ email: 'carol@example.com', name: 'Carol again' }, 'email']);
    for (const [body, field] of cases) {
      const res = await h.call('POST', '/v1/affiliates/invites', body);
      expect([field, res.status, res.json.message.map((m: string) => m.split(':')[0])]).toEqual([field, 400, [field]]);
    }
    expect((await h.client.affiliates.listInvites()).result.pagination.totalRecords).toBe(2);
    const program = (await h.call('GET', '/v1/affiliates/program')).json;
    expect((await h.call('POST', '/v1/affiliates/invites', { email: 'dan@example.com', name: 'Dan', program_id: program.id })).status).toBe(200);

    const other = await h.service.createStore('Other seller');
    const otherCall = api(h.service.testUrl, other.test_api_key);
    expect((await otherCall('GET', `/v1/affiliates/${affiliate.id}`)).status).toBe(404);
    expect((await otherCall('GET', `/v1/affiliates/${affiliate.id}/commissions`)).status).toBe(404);
    expect((await otherCall('GET', '/v1/affiliates')).json.items).toEqual([]);
    // Another store's code attributes nothing: the checkout is refused, naming the field.
    const otherProduct = await makeProduct(h.service.contextOf(other));
    const refused = await otherCall('POST', '/v1/checkouts', { product_id: otherProduct.id, affiliate_code: code });
    expect([refused.status, refused.json.message[0].split(':')[0]]).toEqual([400, 'affiliate_code']);
    // GraphQL takes the same code, through the same operation: attributed, or refused naming the field.
    const checkoutVia = (call: ReturnType<typeof api>, productId: string) =>
      call('POST', '/graphql', {
        query: 'mutation($input: CreateCheckoutInput!) { createCheckout(input: $input) { checkout { id } userErrors { field code } } }',
        variables: { input: { productId, affiliateCode: code } },
      });
    const refusedInGraphql = (await checkoutVia(otherCall, otherProduct.id)).json.data.createCheckout;
    expect(refusedInGraphql).toMatchObject({ checkout: null, userErrors: [{ field: 'affiliateCode', code: 'validation_failed' }] });
    const ownProduct = await makeProduct(await ctx());
    const attributed = (await checkoutVia(h.call, ownProduct.id)).json.data.createCheckout;
    expect(attributed.userErrors).toEqual([]);
    expect(await h.service.db.prisma.checkout.findUniqueOrThrow({ where: { id: attributed.checkout.id } })).toMatchObject({ affiliateId: affiliate.id });
  });

  it('referral link -> checkout -> payment -> commission -> refund, reversed in proportion', async () => {
    const { affiliate, code } = await join('ref@example.com');
    const product = await makeProduct(await ctx(), { name: 'Course', price: 12_345, currency: 'EUR', tax_mode: 'inclusive' });
    const visitor = new CheckoutBrowser(h.service.testUrl);

    // The landing page lists the store's products; a product link goes straight to its checkout.
    const landing = await visitor.get(`/r/${code.toLowerCase()}`);
    expect([landing.status, landing.html.includes('Course')]).toEqual([200, true]);
    expect(visitor.cookie).toContain(`ref_${h.store.id}=${code}`);
    const direct = await visitor.get(`/r/${code}?product=${product.id}`);
    expect([direct.status, direct.location]).toEqual([303, `/buy/${product.id}?ref=${code}`]);
    // The cookie alone carries the code: a later visit to the buy link is still the affiliate's.
    const opened = await visitor.get(`/buy/${product.id}`);
    expect(opened.status).toBe(303);
    const paid = await visitor.pay(opened.location!, { ...BUYER, country: 'DE' });
    expect(paid.status, paid.html).toBe(303);

    const order = await h.service.db.prisma.order.findFirstOrThrow({ where: { storeId: h.store.id, productId: product.id } });
    expect(order.affiliate).toBe(affiliate.id);
    const checkout = await h.client.checkouts.retrieve(opened.location!.slice('/checkout/'.length));
    expect(checkout.order).toMatchObject({ id: order.id, affiliate: affiliate.id });
    const t = await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: order.transactionId! } });
    const net = t.amount - t.taxAmount;
    expect(t.taxAmount).toBeGreaterThan(0n);
    // 20 % of the net amount, half away from zero.
    const earned = (net * 2000n + 5000n) / 10_000n;
    const [commission] = await commissions(affiliate.id);
    expect(commission).toMatchObject({ object: 'commission', affiliate: affiliate.id, amount: Number(earned), currency: 'EUR', status: 'pending', sale: t.id });
    expect(await h.client.affiliates.retrieve(affiliate.id)).toMatchObject({ clicks: 2, conversions: 1, earnings: Number(earned), currency: 'EUR' });

    // A third refunded reverses a third of the commission; the rest reverses the rest exactly.
    const refund = async (amount?: number) => {
      const res = await h.call('POST', '/v1/refunds', { transaction_id: t.id, ...(amount ? { amount } : {}) });
      expect(res.status, res.text).toBe(200);
      await h.call('POST', '/v1/test-clock/advance', { to: new Date((await ctx()).clock.now().getTime() + 60 * 60 * 1000).toISOString() });
    };
    await refund(4_115);
    const afterFirst = await commissions(affiliate.id);
    expect(afterFirst).toHaveLength(2);
    const [net1] = [(4_115n * net * 2n + t.amount) / (2n * t.amount)];
    expect(afterFirst[0]!.amount).toBe(-Number((earned * net1 * 2n + net) / (2n * net)));
    await refund();
    const all = await commissions(affiliate.id);
    expect(all.reduce((s, c) => s + c.amount, 0)).toBe(0);
    expect((await h.client.affiliates.retrieve(affiliate.id)).earnings).toBe(0);
  });

  it('a chargeback reverses the commission and the split allocations in full', async () => {
    const { affiliate, code } = await join('dispute@example.com');
    const partner = await h.service.createStore('Partner');
    expect((await h.call('POST', '/v1/splits', { type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: partner.id, amount: 30 }] })).status).toBe(200);
    const product = await makeProduct(await ctx(), { price: 2_500, currency: 'EUR' });
    const paid = await makePaidCheckout(await ctx(), product.id, { checkout: { affiliate_code: code }, buyer: { country: 'US', card_number: '4000000000000259' } });
    const sale = paid.order!.transactionId!;
    expect((await commissions(affiliate.id)).map((c) => c.amount)).toEqual([500]);
    await h.call('POST', '/v1/test-clock/advance', { seconds: 3_700 });
    expect((await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: sale } })).status).toBe('chargedBack');
    const dispute = await h.service.db.prisma.dispute.findUniqueOrThrow({ where: { transactionId: sale } });
    // The client keeps only its model's fields; the reversal's `refund` (our extension) is read raw.
    const raw = (await h.call('GET', `/v1/affiliates/${affiliate.id}/commissions`)).json.items;
    expect(raw.map((c: { amount: number; refund: string | null }) => [c.amount, c.refund])).toEqual([[-500, dispute.id], [500, null]]);
    const allocations = await h.service.db.prisma.splitAllocation.findMany({ where: { transactionId: sale }, orderBy: { id: 'asc' } });
    expect(allocations.map((a) => [a.amount, a.refundId])).toEqual([[750n, null], [-750n, dispute.id]]);
  });

  it('a refund that settles after a chargeback leaves the payment charged back and the shares reversed once', async () => {
    const { affiliate, code } = await join('late-refund@example.com');
    const partner = await h.service.createStore('Late partner');
    expect((await h.call('POST', '/v1/splits', { type: 'store', type_reference: h.store.id, recipients: [{ recipient_type: 'store', recipient_reference: partner.id, amount: 10 }] })).status).toBe(200);
    const product = await makeProduct(await ctx(), { price: 3_000, currency: 'EUR' });
    const paid = await makePaidCheckout(await ctx(), product.id, { checkout: { affiliate_code: code }, buyer: { country: 'US', card_number: '4000000000000259' } });
    const sale = paid.order!.transactionId!;
    // A refund reserved and sent to the processor, whose process died before recording it.
    const refundId = newId('refund');
    await h.service.db.prisma.refund.create({ data: { id: refundId, storeId: h.store.id, mode: 'test', transactionId: sale, amount: 1_000n, taxAmount: 0n, currency: 'EUR', reason: 'other', status: 'pending', createdAt: new Date() } });
    await h.service.db.prisma.transaction.update({ where: { id: sale }, data: { refundedAmount: { increment: 1_000n } } });
    await paymentProcessorFor('test')!.refund({ idempotencyKey: refundId, chargeReference: sale, amount: 1_000n, currency: 'EUR' });
    // The buyer's bank charges the payment back meanwhile; then the refund's job settles it.
    await h.call('POST', '/v1/test-clock/advance', { seconds: 3_700 });
    expect((await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: sale } })).status).toBe('chargedBack');
    await settleRefundJob.run(await ctx(), refundId);
    expect(await h.service.db.prisma.refund.findUniqueOrThrow({ where: { id: refundId } })).toMatchObject({ status: 'succeeded' });
    expect((await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: sale } })).status).toBe('chargedBack');
    const commissions = await h.service.db.prisma.affiliateCommission.findMany({ where: { affiliateId: affiliate.id } });
    const allocations = await h.service.db.prisma.splitAllocation.findMany({ where: { transactionId: sale } });
    expect([commissions.reduce((x, c) => x + c.amount, 0n), commissions.length]).toEqual([0n, 2]);
    expect([allocations.reduce((x, a) => x + a.amount, 0n), allocations.length]).toEqual([0n, 2]);
  });

  it('earns on renewals, turns approved after the hold, and a payout marks them paid', async () => {
    const { affiliate, code } = await join('sub@example.com');
    expect((await h.call('POST', '/v1/affiliates/program', { commission_percent: 12.5, hold_days: 10 })).json).toMatchObject({ commission_percent: 12.5, hold_days: 10, cookie_days: 30 });
    const plan = await makeRecurringProduct(await ctx(), { price: 999, currency: 'USD' });
    const bought = await makePaidCheckout(await ctx(), plan.id, { checkout: { affiliate_code: code } });
    const end = bought.subscription!.currentPeriodEndDate!;
    expect((await h.call('POST', '/v1/test-clock/advance', { to: new Date(end.getTime() + 1_000).toISOString() })).json.ran).toMatchObject({ 'subscription.renew': 1 });
    const sales = await h.service.db.prisma.transaction.findMany({ where: { subscriptionId: bought.subscription!.id, status: 'paid' }, orderBy: { id: 'asc' } });
    expect(sales).toHaveLength(2);
    const [purchase, renewal] = sales;
    // No tax here: 12.5 % of 999 is 124.875, so 125, rounded half away from zero.
    expect(sales.map((x) => x.amount - x.taxAmount)).toEqual([999n, 999n]);
    expect((await commissions(affiliate.id)).map((c) => [c.sale, c.amount])).toEqual([[renewal!.id, 125], [purchase!.id, 125]]);
    // The purchase's commission is past the 10-day hold (a month went by); the renewal's is not.
    expect((await commissions(affiliate.id, 'approved')).map((c) => c.sale)).toEqual([purchase!.id]);
    expect((await commissions(affiliate.id, 'pending')).map((c) => c.sale)).toEqual([renewal!.id]);

    const payout = await h.call('POST', `/v1/affiliates/${affiliate.id}/payouts`);
    expect(payout.json.totals).toEqual([{ currency: 'USD', amount: 125, commissions: 1 }]);
    expect((await commissions(affiliate.id, 'paid')).map((c) => c.sale)).toEqual([purchase!.id]);
    expect(await commissions(affiliate.id, 'approved')).toEqual([]);
    // Nothing left to pay: a second payout marks nothing.
    expect((await h.call('POST', `/v1/affiliates/${affiliate.id}/payouts`)).json.totals).toEqual([]);
  });

  it('stays exact under concurrent requests: one invitation per address, every click counted, one payout', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.call('POST', '/v1/affiliates/invites', { email: 'race@example.com', name: 'Race' })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);

    const { affiliate, code } = await join('clicks@example.com');
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${h.service.testUrl}/r/${code}`).then((r) => r.text())));
    expect((await h.client.affiliates.retrieve(affiliate.id)).clicks).toBe(20);

    const product = await makeProduct(await ctx(), { price: 5_000, currency: 'USD' });
    await makePaidCheckout(await ctx(), product.id, { checkout: { affiliate_code: code } });
    await h.call('POST', '/v1/test-clock/advance', { to: new Date((await ctx()).clock.now().getTime() + 31 * DAY).toISOString() });
    const payouts = await Promise.all([1, 2, 3].map(() => h.call('POST', `/v1/affiliates/${affiliate.id}/payouts`)));
    expect(payouts.map((p) => p.json.totals).sort((a, b) => b.length - a.length)).toEqual([[{ currency: 'USD', amount: 1_000, commissions: 1 }], [], []]);
  });

  it('reads the same over GraphQL', async () => {
    const invited = await h.call('POST', '/graphql', { query: `mutation { inviteAffiliate(input: { email: "gql@example.com", name: "Gee" }) { invite { email status inviteUrl } userErrors { field code } } }` });
    expect(invited.json.data.inviteAffiliate).toMatchObject({ invite: { email: 'gql@example.com', status: 'pending' }, userErrors: [] });
    expect(invited.json.data.inviteAffiliate.invite.inviteUrl).toContain('/affiliate-invitations/afi_');
    const again = await h.call('POST', '/graphql', { query: `mutation { inviteAffiliate(input: { email: "gql@example.com", name: "Gee" }) { invite { id } userErrors { field code } } }` });
    expect(again.json.data.inviteAffiliate).toEqual({ invite: null, userErrors: [{ field: 'email', code: 'validation_failed' }] });

    const { affiliate, code } = await join('graph@example.com');
    const product = await makeProduct(await ctx(), { price: 1_000, currency: 'USD' });
    await makePaidCheckout(await ctx(), product.id, { checkout: { affiliate_code: code.toLowerCase() } });
    const res = await h.call('POST', '/graphql', {
      query: `{ affiliateProgram { commissionPercent holdDays }
        affiliates(first: 5) { nodes { id referralCode conversions earnings { amount currency } } }
        affiliateCommissions(affiliateId: "${affiliate.id}", status: pending) { totalCount nodes { amount { amount currency } status saleId } } }`,
    });
    expect(res.json.errors).toBeUndefined();
    expect(res.json.data.affiliateProgram).toEqual({ commissionPercent: 20, holdDays: 30 });
    const node = res.json.data.affiliates.nodes.find((a: { id: string }) => a.id === affiliate.id);
    const sale = await h.service.db.prisma.order.findFirstOrThrow({ where: { affiliate: affiliate.id } });
    const t = await h.service.db.prisma.transaction.findUniqueOrThrow({ where: { id: sale.transactionId! } });
    const earned = String(((t.amount - t.taxAmount) * 2000n + 5000n) / 10_000n);
    expect(node).toEqual({ id: affiliate.id, referralCode: code, conversions: 1, earnings: [{ amount: earned, currency: 'USD' }] });
    expect(res.json.data.affiliateCommissions).toEqual({ totalCount: 1, nodes: [{ amount: { amount: earned, currency: 'USD' }, status: 'pending', saleId: t.id }] });
  });
});
