import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/tenant.js';
import { recordEvent } from '../../src/modules/events/events.service.js';
import { acceptAffiliateInvite } from '../../src/modules/affiliates/affiliate-invitations.js';
import { makeCustomer, makePaidCheckout, makeProduct, makeRecurringProduct } from '../support/factories.js';
import { tenantFingerprint, v1Routes } from '../support/routes.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Isolation, generated from the router: every /v1 route that addresses a resource by id, called
 * with another store's key and with the same store's key of the other environment, answers 404
 * and changes nothing. A new route must be classified below, or this test fails naming it.
 */

interface Fixture {
  product: string;
  customer: string;
  checkout: string;
  transaction: string;
  subscription: string;
  license: string;
  licenseKey: string;
  instance: string;
  discount: string;
  discountCode: string;
  webhook: string;
  cliWebhook: string;
  event: string;
  creditAccount: string;
  creditTransaction: string;
  meter: string;
  split: string;
  affiliate: string;
}

type Call = { query?: Record<string, string>; body?: Record<string, unknown>; params?: Record<string, string> };

/** How each route names its resource; `null`: the route addresses no single resource (creates, lists). */
const ROUTES: Record<string, ((f: Fixture) => Call) | null> = {
  'POST /products': null,
  'GET /products/search': null,
  'GET /products/:id': (f) => ({ params: { id: f.product } }),
  'PATCH /products/:id': (f) => ({ params: { id: f.product }, body: { name: 'hijacked', price: 2000 } }),
  'DELETE /products/:id': (f) => ({ params: { id: f.product } }),
  'POST /discounts': null,
  'GET /discounts/search': null,
  'GET /discounts': (f) => ({ query: { discount_id: f.discount } }),
  'DELETE /discounts/:id/delete': (f) => ({ params: { id: f.discount } }),
  'POST /checkouts': null,
  'GET /checkouts': (f) => ({ query: { checkout_id: f.checkout } }),
  'POST /customers/billing': (f) => ({ body: { customer_id: f.customer } }),
  'POST /licenses/activate': (f) => ({ body: { key: f.licenseKey, instance_name: 'intruder' } }),
  'POST /licenses/validate': (f) => ({ body: { key: f.licenseKey, instance_id: f.instance } }),
  'POST /licenses/deactivate': (f) => ({ body: { key: f.licenseKey, instance_id: f.instance } }),
  'GET /licenses/:id/instances': (f) => ({ params: { id: f.license } }),
  'GET /customers/:id/licenses': (f) => ({ params: { id: f.customer } }),
  'GET /customers/:id/orders': (f) => ({ params: { id: f.customer } }),
  'GET /subscriptions/search': null,
  'GET /subscriptions': (f) => ({ query: { subscription_id: f.subscription } }),
  'GET /customers/:id/subscriptions': (f) => ({ params: { id: f.customer } }),
  'GET /transactions/search': null,
  'GET /transactions': (f) => ({ query: { transaction_id: f.transaction } }),
  'POST /webhooks': null,
  'GET /webhooks': null,
  'GET /webhooks/:id/events/pending': (f) => ({ params: { id: f.cliWebhook } }),
  'POST /webhooks/:id/events/:event_id/ack': (f) => ({ params: { id: f.cliWebhook, event_id: f.event }, body: { status_code: 200 } }),
  'POST /webhooks/:id/events/:event_id/resend': (f) => ({ params: { id: f.webhook, event_id: f.event } }),
  'GET /webhooks/:id/secret': (f) => ({ params: { id: f.webhook } }),
  'POST /webhooks/:id/secret/rotate': (f) => ({ params: { id: f.webhook } }),
  'GET /webhooks/:id/deliveries': (f) => ({ params: { id: f.webhook } }),
  'GET /webhooks/:id': (f) => ({ params: { id: f.webhook } }),
  'PATCH /webhooks/:id': (f) => ({ params: { id: f.webhook }, body: { name: 'hijacked', status: 'disabled' } }),
  'DELETE /webhooks/:id': (f) => ({ params: { id: f.webhook } }),
  'POST /customers': null,
  'GET /customers/list': null,
  'GET /customers': (f) => ({ query: { customer_id: f.customer } }),
  'PATCH /customers': (f) => ({ body: { customer_id: f.customer, name: 'hijacked', metadata: { owned: true } } }),
  'POST /subscriptions/:id/cancel': (f) => ({ params: { id: f.subscription }, body: { mode: 'immediate' } }),
  'POST /subscriptions/:id/pause': (f) => ({ params: { id: f.subscription } }),
  'POST /subscriptions/:id/resume': (f) => ({ params: { id: f.subscription } }),
  'POST /subscriptions/:id/upgrade/preview': (f) => ({ params: { id: f.subscription }, body: { units: 2 } }),
  'POST /subscriptions/:id/upgrade': (f) => ({ params: { id: f.subscription }, body: { product_id: f.product } }),
  'POST /subscriptions/:id': (f) => ({ params: { id: f.subscription }, body: { items: [{ units: 3 }] } }),
  'POST /refunds': (f) => ({ body: { transaction_id: f.transaction } }),
  'GET /test-clock': null,
  'POST /test-clock/advance': null,
  'POST /customer-credits/accounts': (f) => ({ body: { customer_id: f.customer, name: 'intruder' } }),
  'GET /customer-credits/accounts': (f) => ({ query: { customer_id: f.customer } }),
  'GET /customer-credits/accounts/:id': (f) => ({ params: { id: f.creditAccount } }),
  'GET /customer-credits/accounts/:id/balance': (f) => ({ params: { id: f.creditAccount } }),
  'GET /customer-credits/accounts/:id/entries': (f) => ({ params: { id: f.creditAccount } }),
  'POST /customer-credits/accounts/:id/freeze': (f) => ({ params: { id: f.creditAccount } }),
  'POST /customer-credits/accounts/:id/unfreeze': (f) => ({ params: { id: f.creditAccount } }),
  'POST /customer-credits/accounts/:id/close': (f) => ({ params: { id: f.creditAccount } }),
  'POST /customer-credits/accounts/:id/credit': (f) => ({ params: { id: f.creditAccount }, body: { amount: '5', reference: 'x', idempotency_key: 'intruder-credit' } }),
  'POST /customer-credits/accounts/:id/debit': (f) => ({ params: { id: f.creditAccount }, body: { amount: '5', reference: 'x', idempotency_key: 'intruder-debit' } }),
  'POST /customer-credits/accounts/:id/reverse': (f) => ({ params: { id: f.creditAccount }, body: { transaction_id: f.creditTransaction } }),
  'POST /customer-credits/accounts/:id/auto-recharge': (f) => ({ params: { id: f.creditAccount }, body: { threshold: '10', amount: '100', product_id: f.product } }),
  'DELETE /customer-credits/accounts/:id/auto-recharge': (f) => ({ params: { id: f.creditAccount } }),
  'POST /customer-credits/transactions': (f) => ({
    body: { reference: 'x', idempotency_key: 'intruder-post', entries: [{ account_id: f.creditAccount, side: 'debit', amount: '1' }, { account_id: f.creditAccount, side: 'credit', amount: '1' }] },
  }),
  'GET /customer-credits/transactions': null,
  'GET /customer-credits/transactions/:id': (f) => ({ params: { id: f.creditTransaction } }),
  'POST /customer-credits/transactions/:id/reverse': (f) => ({ params: { id: f.creditTransaction } }),
  'POST /meters/preview': null,
  'POST /meters': null,
  'GET /meters': null,
  'GET /meters/:id': (f) => ({ params: { id: f.meter } }),
  'PATCH /meters/:id': (f) => ({ params: { id: f.meter }, body: { name: 'hijacked' } }),
  'POST /meters/:id/archive': (f) => ({ params: { id: f.meter } }),
  'POST /meters/:id/unarchive': (f) => ({ params: { id: f.meter } }),
  'GET /meters/:id/consumed': (f) => ({ params: { id: f.meter }, query: { customer_id: f.customer } }),
  'POST /meters/:id/preview': (f) => ({ params: { id: f.meter } }),
  // A batch naming another store's customer is refused whole with 422, as for any unknown
  // customer (the client documents it so; test/contract/metering.test.ts checks it).
  'POST /events/ingest': null,
  'POST /events/preview': null,
  'GET /events': (f) => ({ query: { meter_id: f.meter } }),
  'POST /splits': null,
  'GET /splits': null,
  // Lists what the caller's own store receives (test/billing/split-allocations.test.ts checks another store sees none).
  'GET /splits/allocations/incoming': null,
  'GET /stats/summary': null,
  'GET /splits/:id': (f) => ({ params: { id: f.split } }),
  'DELETE /splits/:id': (f) => ({ params: { id: f.split } }),
  'POST /affiliates/invites': null,
  'GET /affiliates/invites': null,
  // The caller's own program: made for it on first use, never another store's.
  'GET /affiliates/program': null,
  'POST /affiliates/program': null,
  'GET /affiliates': null,
  'GET /affiliates/:id': (f) => ({ params: { id: f.affiliate } }),
  'GET /affiliates/:id/commissions': (f) => ({ params: { id: f.affiliate } }),
  'POST /affiliates/:id/payouts': (f) => ({ params: { id: f.affiliate } }),
};

/** Every route of the /v1 router as "METHOD /path". */
const routerRoutes = () => v1Routes().map((r) => r.name);

describe('isolation of every /v1 route that names a resource', () => {
  let service: TestService;
  let fixture: Fixture;
  let intruders: { name: string; call: ReturnType<typeof api> }[];
  let ownerId: string;

  /** One text per tenant table, over the owner's test-environment rows: any write to them changes it. */
  const fingerprint = () => tenantFingerprint(service.db, ownerId);

  beforeAll(async () => {
    // No job runner: its deliveries of the owner's events would change the owner's rows meanwhile.
    service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    const owner = await service.createStore('Owner');
    ownerId = owner.id;
    const ctx = service.contextOf(owner);
    const keyed = await makeProduct(ctx, { features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 5 } }] });
    const oneTime = await makePaidCheckout(ctx, keyed.id);
    const subscribed = await makePaidCheckout(ctx, (await makeRecurringProduct(ctx)).id);
    const license = oneTime.order!.licenses[0]!;
    const rest = api(service.testUrl, owner.test_api_key);
    const instance = (await rest('POST', '/v1/licenses/activate', { key: license.key, instance_name: 'mine' })).json.instance.id;
    const discount = (await rest('POST', '/v1/discounts', { name: 'Ten', code: 'TEN', type: 'percentage', percentage: 10, duration: 'once' })).json;
    const webhook = (await rest('POST', '/v1/webhooks', { url: 'https://example.com/hook', events: ['checkout.completed'] })).json.id;
    const cliWebhook = (await rest('POST', '/v1/webhooks', { delivery_mode: 'cli', events: ['checkout.completed'] })).json.id;
    const event = await inTransaction(ctx, (tx) => recordEvent(tx, 'checkout.completed', { id: oneTime.id }));
    const customer = (await makeCustomer(ctx)).id;
    const creditAccount = (await rest('POST', '/v1/customer-credits/accounts', { customer_id: customer, name: 'Owned', initial_balance: '50' })).json.id;
    const creditTransaction = (await rest('POST', `/v1/customer-credits/accounts/${creditAccount}/credit`, { amount: '5', reference: 'owned', idempotency_key: 'owner-credit' })).json.id;
    const meter = (await rest('POST', '/v1/meters', { name: 'Owned', event_name: 'owned.usage', aggregation: 'sum', aggregation_property: 'n', unit_label: 'n' })).json.id;
    await rest('POST', '/v1/events/ingest', { events: [{ name: 'owned.usage', customer_id: customer, event_id: 'owned-1', properties: { n: 3 } }] });
    const split = (await rest('POST', '/v1/splits', { type: 'store', type_reference: owner.id, recipients: [{ recipient_type: 'email', recipient_reference: 'partner@example.com', amount: 10 }] })).json.id;
    const invite = (await rest('POST', '/v1/affiliates/invites', { email: 'affiliate@example.com', name: 'Owned' })).json.id;
    const affiliate = (await acceptAffiliateInvite(ctx, invite, null)).id;
    fixture = {
      product: keyed.id,
      customer,
      checkout: oneTime.id,
      transaction: oneTime.order!.transactionId!,
      subscription: subscribed.subscription!.id,
      license: license.id,
      licenseKey: license.key,
      instance,
      discount: discount.id,
      discountCode: discount.code,
      webhook,
      cliWebhook,
      event: event.id,
      creditAccount,
      creditTransaction,
      meter,
      split,
      affiliate,
    };
    const other = await service.createStore('Intruder');
    intruders = [
      { name: 'another store', call: api(service.testUrl, other.test_api_key) },
      { name: 'the other environment', call: api(service.prodUrl, owner.prod_api_key) },
    ];
  });
  afterAll(() => service?.close());

  it('classifies every route of the router', () => {
    expect(routerRoutes().filter((r) => !(r in ROUTES))).toEqual([]);
    expect(Object.keys(ROUTES).filter((r) => !routerRoutes().includes(r))).toEqual([]);
  });

  it('answers 404 to another store and to the other environment, and writes nothing', async () => {
    const before = await fingerprint();
    const answers: string[] = [];
    for (const [route, call] of Object.entries(ROUTES)) {
      if (!call) continue;
      const [method, template] = route.split(' ') as [string, string];
      const { params = {}, query, body } = call(fixture);
      const path = template.replace(/:(\w+)/g, (_m, name: string) => params[name]!);
      for (const intruder of intruders) {
        const res = await intruder.call(method, `/v1${path}${query ? `?${new URLSearchParams(query)}` : ''}`, body, method === 'POST' ? { 'idempotency-key': `${route} ${intruder.name}` } : {});
        // Customer-credits and metering errors carry their code in the structured body.
        answers.push(`${route} as ${intruder.name}: ${res.status} ${res.json?.code ?? res.json?.error?.code ?? ''}`);
      }
    }
    expect(answers).toEqual(answers.map((a) => a.replace(/: \d+ .*$/, ': 404 not_found')));
    expect(await fingerprint()).toBe(before);
  });
});
