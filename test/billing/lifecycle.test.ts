import { describe, expect, it } from 'vitest';
import { withStoreClock } from '../../src/modules/test-clock/test-clock.service.js';
import { expectEventsParse } from '../support/events.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';
import { billingHarness } from '../support/billing-harness.js';

/** Cancel, pause and resume, through the official client, with the test clock for what happens at a period's end. */
describe('subscription lifecycle: cancel, pause, resume', () => {
  const h = billingHarness('Lifecycle', { storePerTest: true });

  const subscribe = async (price = 1000) => {
    const ctx = await withStoreClock(h.service.contextOf(h.store));
    const product = await makeRecurringProduct(ctx, { price });
    return (await makePaidCheckout(ctx, product.id, { buyer: { country: 'US' } })).subscription!.id;
  };
  const get = async (id: string) => (await h.call('GET', `/v1/subscriptions?subscription_id=${id}`)).json;
  const advancePast = async (iso: string, ms = 1_000) => (await h.call('POST', '/v1/test-clock/advance', { to: new Date(Date.parse(iso) + ms).toISOString() })).json;
  const events = async (id: string) =>
    (await h.service.db.prisma.event.findMany({ where: { storeId: h.store.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }))
      .filter((e) => (e.payload as { id?: string }).id === id)
      .map((e) => e.type);
  const charges = async (id: string) => h.service.db.prisma.transaction.count({ where: { subscriptionId: id, status: 'paid' } });

  it('cancels at once: canceled, canceled_at, the event, and no renewal afterwards', async () => {
    const id = await subscribe();
    const end = (await get(id)).current_period_end_date;
    const canceled = await h.client.subscriptions.cancel(id, { mode: 'immediate' });
    expect(canceled).toMatchObject({ id, status: 'canceled' });
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    expect((await advancePast(end, 40 * 86_400_000)).ran).toEqual({});
    expect(await charges(id)).toBe(1);
    expect((await events(id)).slice(-1)).toEqual(['subscription.canceled']);
    // Cancelling what is canceled is refused, naming the state.
    const again = await h.call('POST', `/v1/subscriptions/${id}/cancel`, {});
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ code: 'invalid_state', message: [expect.stringMatching(/^status: is canceled/)] });
  });

  it('schedules a cancellation: scheduled_cancel now, canceled at the period end without a charge', async () => {
    const id = await subscribe();
    const scheduled = await h.client.subscriptions.cancel(id, { mode: 'scheduled', onExecute: 'cancel' });
    expect(scheduled.status).toBe('scheduled_cancel');
    const end = (await get(id)).current_period_end_date;
    expect((await advancePast(end, -60_000)).ran).toEqual({});
    expect((await get(id)).status).toBe('scheduled_cancel');
    expect((await advancePast(end)).ran).toEqual({ 'subscription.renew': 1 });
    expect(await get(id)).toMatchObject({ status: 'canceled', canceled_at: end });
    expect(await charges(id)).toBe(1);
    expect((await events(id)).slice(-2)).toEqual(['subscription.scheduled_cancel', 'subscription.canceled']);
  });

  it('schedules a pause: paused at the period end; resuming starts a new period charged at once', async () => {
    const id = await subscribe(1500);
    await h.client.subscriptions.cancel(id, { mode: 'scheduled', onExecute: 'pause' });
    const end = (await get(id)).current_period_end_date;
    await advancePast(end);
    expect((await get(id)).status).toBe('paused');
    // Paused: a month passes, nothing is charged.
    expect((await advancePast(end, 35 * 86_400_000)).ran).toEqual({});
    const resumed = await h.client.subscriptions.resume(id);
    expect(resumed.status).toBe('active');
    // The renewal job charges the new period on the next round (here: the next advance).
    expect((await h.call('POST', '/v1/test-clock/advance', { seconds: 1 })).json.ran).toEqual({ 'subscription.renew': 1 });
    const after = await get(id);
    expect(Date.parse(after.current_period_start_date)).toBe(Date.parse(resumed.currentPeriodStartDate!.toISOString()));
    expect(await charges(id)).toBe(2);
    expect(await events(id)).toEqual(['subscription.active', 'subscription.paid', 'subscription.scheduled_cancel', 'subscription.paused', 'subscription.active', 'subscription.paid']);
  });

  it('pauses and resumes at once; resuming a scheduled cancellation withdraws it and keeps the period', async () => {
    const id = await subscribe();
    const paused = await h.client.subscriptions.pause(id);
    expect(paused.status).toBe('paused');
    expect((await h.call('POST', `/v1/subscriptions/${id}/pause`)).json.code).toBe('invalid_state');
    expect((await h.client.subscriptions.resume(id)).status).toBe('active');

    const other = await subscribe();
    const before = await get(other);
    await h.client.subscriptions.cancel(other, { mode: 'scheduled' });
    const withdrawn = await h.client.subscriptions.resume(other);
    expect(withdrawn.status).toBe('active');
    expect(withdrawn.currentPeriodEndDate?.toISOString()).toBe(before.current_period_end_date);
    // It renews as usual at the period end.
    expect((await advancePast(before.current_period_end_date)).ran['subscription.renew']).toBeGreaterThanOrEqual(1);
    expect(await charges(other)).toBe(2);
    // Resuming an active subscription is refused, naming its state.
    const refused = await h.call('POST', `/v1/subscriptions/${other}/resume`);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toEqual([expect.stringMatching(/^status: is active/)]);
  });

  it('runs the same operations through GraphQL', async () => {
    const id = await subscribe();
    const gql = (query: string, variables: object) => h.call('POST', '/graphql', { query, variables });
    const paused = await gql('mutation($i: PauseSubscriptionInput!) { pauseSubscription(input: $i) { subscription { id status } userErrors { code } } }', { i: { id } });
    expect(paused.json.data.pauseSubscription).toEqual({ subscription: { id, status: 'paused' }, userErrors: [] });
    const canceled = await gql('mutation($i: CancelSubscriptionInput!) { cancelSubscription(input: $i) { subscription { status } userErrors { code field } } }', { i: { id, mode: 'scheduled' } });
    expect(canceled.json.data.cancelSubscription).toEqual({ subscription: null, userErrors: [{ code: 'invalid_state', field: 'status' }] });
  });

  it('emits events whose bodies parse with the official client’s models', async () => {
    await expectEventsParse(h.service.db, ['subscription.canceled', 'subscription.scheduled_cancel', 'subscription.paused', 'subscription.active']);
  });
});
