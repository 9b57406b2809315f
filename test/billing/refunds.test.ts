import { describe, expect, it } from 'vitest';
import { DISPUTED_CARD } from '../../src/modules/payments/simulated-processor.js';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';

/** Refunds: full, partial, concurrent; tax back in proportion; never more than was paid. */
describe('refunds', () => {
  const h = billingHarness('Refunds', { storePerTest: false });

  /** A paid one-time purchase of 100.00 EUR plus 19% German VAT: 119.00 paid, 19.00 of it tax. */
  const paidTransaction = async () => {
    const ctx = h.service.contextOf(h.store);
    const product = await makeProduct(ctx, { price: 10_000, tax_mode: 'exclusive' });
    const paid = await makePaidCheckout(ctx, product.id, { buyer: { country: 'DE' } });
    return paid.order!.transactionId!;
  };
  const transaction = async (id: string) => (await h.call('GET', `/v1/transactions?transaction_id=${id}`)).json;

  it('refunds in full through the official client: status refunded, one refund.created', async () => {
    const id = await paidTransaction();
    const answer = await h.client.transactions.refund({ transactionId: id });
    expect(answer.status).toBe('succeeded');
    expect(await transaction(id)).toMatchObject({ status: 'refunded', refunded_amount: 11_900, amount_paid: 11_900 });
    const again = await h.call('POST', '/v1/refunds', { transaction_id: id });
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ code: 'invalid_state', message: ['transaction_id: is refunded in full'] });
  });

  it('refunds in part, with tax back in proportion, and refuses more than is left', async () => {
    const id = await paidTransaction();
    const first = await h.call('POST', '/v1/refunds', { transaction_id: id, amount: 5_950, reason: 'duplicate' });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ object: 'refund', status: 'succeeded', refund_amount: 5_950, tax_amount: 950, reason: 'duplicate', transaction: { id, status: 'partialRefund' } });
    const tooMuch = await h.call('POST', '/v1/refunds', { transaction_id: id, amount: 5_951 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.message).toEqual(['amount: must be at most 5950, what is left to refund of 11900']);
    const rest = await h.call('POST', '/v1/refunds', { transaction_id: id });
    expect(rest.json).toMatchObject({ refund_amount: 5_950, tax_amount: 950, transaction: { status: 'refunded', refunded_amount: 11_900 } });
  });

  it('ten concurrent partial refunds never give back more than was paid', async () => {
    const id = await paidTransaction();
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', '/v1/refunds', { transaction_id: id, amount: 2_000 })));
    const ok = answers.filter((a) => a.status === 200);
    // 5 × 20.00 fit in 119.00; the other five are refused, each naming the amount.
    expect(ok).toHaveLength(5);
    for (const refused of answers.filter((a) => a.status !== 200)) expect(refused.json.message[0]).toMatch(/^amount: must be at most/);
    const t = await transaction(id);
    expect(t).toMatchObject({ refunded_amount: 10_000, status: 'partialRefund' });
    const refunds = await h.service.db.prisma.refund.findMany({ where: { transactionId: id } });
    expect(refunds.reduce((s, r) => s + r.amount, 0n)).toBe(10_000n);
  });

  it('answers a retry with the same Idempotency-Key with the first refund, refunding once', async () => {
    const id = await paidTransaction();
    const headers = { 'Idempotency-Key': `refund-${id}` };
    const [a, b] = await Promise.all([h.call('POST', '/v1/refunds', { transaction_id: id, amount: 1_000 }, headers), h.call('POST', '/v1/refunds', { transaction_id: id, amount: 1_000 }, headers)]);
    expect(a.json.id).toBe(b.json.id);
    const later = await h.call('POST', '/v1/refunds', { transaction_id: id, amount: 1_000 }, headers);
    expect(later.json.id).toBe(a.json.id);
    expect((await transaction(id)).refunded_amount).toBe(1_000);
    expect((await h.call('POST', '/v1/refunds', { transaction_id: id, amount: 2_000 }, headers)).json.code).toBe('idempotency_key_reused');
  });

  it('refuses what cannot be refunded: unknown, declined; and runs through GraphQL too', async () => {
    expect((await h.call('POST', '/v1/refunds', { transaction_id: 'txn_01HZZZZZZZZZZZZZZZZZZZZZZZ' })).status).toBe(404);
    const id = await paidTransaction();
    const gql = await h.call('POST', '/graphql', {
      query: 'mutation($i: RefundTransactionInput!) { refundTransaction(input: $i) { transaction { id status refundedAmount { amount } } refund { status amount { amount currency } reason } userErrors { code field } } }',
      variables: { i: { transactionId: id, amount: '100', reason: 'other' } },
    });
    expect(gql.json.data.refundTransaction).toEqual({
      transaction: { id, status: 'partialRefund', refundedAmount: { amount: '100' } },
      refund: { status: 'succeeded', amount: { amount: '100', currency: 'EUR' }, reason: 'other' },
      userErrors: [],
    });
  });

  it('card 0259: the buyer disputes the payment an hour later by the store’s clock: chargedBack and dispute.created', async () => {
    const ctx = await withStoreClock(h.service.contextOf(h.store));
    const product = await makeProduct(ctx, { price: 2_500 });
    const paid = await makePaidCheckout(ctx, product.id, { buyer: { country: 'US', card_number: DISPUTED_CARD } });
    const id = paid.order!.transactionId!;
    expect((await transaction(id)).status).toBe('paid');
    expect((await h.call('POST', '/v1/test-clock/advance', { seconds: 3_540 })).json.ran).toEqual({});
    expect((await h.call('POST', '/v1/test-clock/advance', { seconds: 120 })).json.ran).toEqual({ 'transaction.dispute': 1 });
    expect(await transaction(id)).toMatchObject({ status: 'chargedBack' });
    const dispute = await h.service.db.prisma.dispute.findUniqueOrThrow({ where: { transactionId: id } });
    expect(dispute).toMatchObject({ amount: 2_500n, currency: 'EUR' });
    // A disputed payment cannot be refunded as well.
    expect((await h.call('POST', '/v1/refunds', { transaction_id: id })).json.code).toBe('invalid_state');
  });

  it('emits refund.created and dispute.created bodies that parse with the official client’s models', async () => {
    await expectEventsParse(h.service.db, ['refund.created', 'dispute.created']);
  });
});
