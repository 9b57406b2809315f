import {
  webhookCheckoutCompletedEventEntityFromJSON,
  webhookSubscriptionActiveEventEntityFromJSON,
  webhookSubscriptionPaidEventEntityFromJSON,
  webhookSubscriptionTrialingEventEntityFromJSON,
} from 'creem/models/components';
import { parseWebhookEventEntity } from 'creem/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import type { Event } from '../../src/generated/prisma/client.js';
import { generateSigningSecret, signDelivery } from '../../src/modules/webhooks/signing.js';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Payload conformance: the `object` of every event the checkout flow emits is the resource
 * exactly as the REST API renders it, and the delivery body parses with the official client's
 * model for that event type (which validates the whole nested resource).
 */

let service: TestService;
let seller: RequestContext;
let rest: ReturnType<typeof api>;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Payload store');
  seller = service.contextOf(store, 'test');
  rest = api(service.testUrl, store.test_api_key);
});
afterAll(() => service?.close());

const SPECIFIC_PARSERS: Record<string, (json: string) => { ok: boolean; error?: unknown }> = {
  'checkout.completed': webhookCheckoutCompletedEventEntityFromJSON,
  'subscription.active': webhookSubscriptionActiveEventEntityFromJSON,
  'subscription.paid': webhookSubscriptionPaidEventEntityFromJSON,
  'subscription.trialing': webhookSubscriptionTrialingEventEntityFromJSON,
};

let buyers = 0;

/** Buys `productBody` (a paid checkout); returns the checkout id, its subscription id, the buyer's email and its events in order. */
async function purchase(productBody: Record<string, unknown>) {
  const product = await makeProduct(seller, { description: 'd', currency: 'EUR', ...productBody });
  const email = `Buyer-${++buyers}@Example.com`;
  const paid = await makePaidCheckout(seller, product.id, { buyer: { email } });
  const subscriptionId = paid.subscription?.id ?? null;
  const events = await service.db.prisma.event.findMany({ orderBy: { id: 'asc' } });
  const own = events.filter((e) => [paid.id, subscriptionId].includes((e.payload as { id: string }).id));
  return { checkoutId: paid.id, subscriptionId, email, events: own };
}

/** The body as a delivery carries it, parsed by the generic and the type's own model. */
function parseDelivered(event: Event) {
  const { body } = signDelivery({ id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload }, generateSigningSecret(), new Date());
  const specific = SPECIFIC_PARSERS[event.type]!(body);
  expect(specific.ok, `${event.type}: ${String(specific.error)}`).toBe(true);
  const parsed = parseWebhookEventEntity(body);
  expect(parsed).toMatchObject({ id: event.id, eventType: event.type, createdAt: event.createdAt.getTime() });
  return parsed as { object: Record<string, any> };
}

async function restCheckout(id: string) {
  const res = await rest('GET', `/v1/checkouts?checkout_id=${id}`);
  expect(res.status).toBe(200);
  return res.json;
}

async function restSubscription(id: string) {
  const res = await rest('GET', `/v1/subscriptions?subscription_id=${id}`);
  expect(res.status).toBe(200);
  return res.json;
}

describe('event payloads match the official client models and the REST representation', () => {
  it('one-time purchase with a license key: checkout.completed', async () => {
    const { checkoutId, email, events } = await purchase({
      name: 'App',
      price: 1500,
      billing_type: 'onetime',
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 2 } }],
    });
    expect(events.map((e) => e.type)).toEqual(['checkout.completed']);
    const [completed] = events;
    expect(completed!.payload).toEqual(await restCheckout(checkoutId));
    const parsed = parseDelivered(completed!);
    expect(parsed.object).toMatchObject({ id: checkoutId, status: 'completed', order: { status: 'paid' }, customer: { email: email.toLowerCase() } });
    expect(parsed.object.licenseKeys).toHaveLength(1);
  });

  it('monthly subscription: checkout.completed, subscription.active, subscription.paid', async () => {
    const { checkoutId, subscriptionId, events } = await purchase({ name: 'Pro', price: 2900, billing_type: 'recurring', billing_period: 'every-month' });
    expect(events.map((e) => e.type)).toEqual(['checkout.completed', 'subscription.active', 'subscription.paid']);
    expect(events[0]!.payload).toEqual(await restCheckout(checkoutId));
    const subscription = await restSubscription(subscriptionId!);
    for (const event of events.slice(1)) expect(event.payload, event.type).toEqual(subscription);
    for (const event of events) parseDelivered(event);
    // The models check the nested resource, not just the envelope: a bare customer id is refused.
    const flattened = { ...events[2]!, payload: { ...(events[2]!.payload as object), customer: 'cust_x' } };
    const { body } = signDelivery({ id: flattened.id, type: flattened.type, createdAt: flattened.createdAt, payload: flattened.payload }, generateSigningSecret(), new Date());
    expect(webhookSubscriptionPaidEventEntityFromJSON(body).ok).toBe(false);
    const paid = parseDelivered(events[2]!);
    expect(paid.object).toMatchObject({ id: subscriptionId, status: 'active', product: { name: 'Pro' }, customer: { object: 'customer' }, lastTransaction: { status: 'paid', amount: 2900 } });
  });

  it('subscription with a trial: checkout.completed, subscription.trialing', async () => {
    const { checkoutId, subscriptionId, events } = await purchase({ name: 'Team', price: 4900, billing_type: 'recurring', billing_period: 'every-year', trial_period_days: 7 });
    expect(events.map((e) => e.type)).toEqual(['checkout.completed', 'subscription.trialing']);
    expect(events[0]!.payload).toEqual(await restCheckout(checkoutId));
    expect(events[1]!.payload).toEqual(await restSubscription(subscriptionId!));
    parseDelivered(events[0]!);
    expect(parseDelivered(events[1]!).object).toMatchObject({ id: subscriptionId, status: 'trialing' });
  });
});
