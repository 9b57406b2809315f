import { Creem } from 'creem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { ManualClock } from '../../src/lib/clock.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';

let service: TestService;
let client: Creem;
let key: string;
let seller: RequestContext;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  service = await startTestService({ clock });
  const store = await service.createStore('Acme');
  key = store.test_api_key;
  client = new Creem({ apiKey: key, serverURL: service.testUrl });
  seller = service.contextOf(store);
});
afterAll(() => service?.close());

it('a billing link opens a page with the customer’s subscriptions, orders and license keys, for an hour', async () => {
  const rest = api(service.testUrl, key);
  const app = await makeRecurringProduct(seller, {
    name: 'Desktop <App>',
    description: 'x',
    price: 3000,
    currency: 'EUR',
    billing_period: 'every-year',
    features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 2 } }],
  });
  const paid = await makePaidCheckout(seller, app.id);
  const customerId = paid.customer!.id;
  const license = paid.order!.licenses[0]!;

  const { customerPortalLink } = await client.customers.generateBillingLinks({ customerId });
  expect(customerPortalLink.startsWith(`${service.testUrl}/portal/${customerId}?`)).toBe(true);
  const page = await fetch(customerPortalLink);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Desktop &lt;App&gt;');
  expect(html).toContain(license.key);
  expect(html).toContain('active');
  expect(html).toContain('€30.00');

  const forged = customerPortalLink.replace(/signature=[^&]+/, 'signature=AAAA');
  expect((await fetch(forged)).status).toBe(403);
  // The same link on the production listener is not valid: environments are separate.
  expect((await fetch(customerPortalLink.replace(service.testUrl, service.prodUrl))).status).toBe(403);
  clock.advance(61 * 60 * 1000);
  expect((await fetch(customerPortalLink)).status).toBe(403);

  // The same operation on GraphQL: same core function, same rules.
  const gql = (query: string) => rest('POST', '/graphql', { query });
  const link = (id: string) => `mutation { createCustomerPortalLink(input: { customerId: "${id}" }) { customerPortalLink userErrors { field message code } } }`;
  const viaGraphql = await gql(link(customerId));
  expect(viaGraphql.json.errors).toBeUndefined();
  expect(viaGraphql.json.data.createCustomerPortalLink.userErrors).toEqual([]);
  expect(viaGraphql.json.data.createCustomerPortalLink.customerPortalLink.startsWith(`${service.testUrl}/portal/${customerId}?`)).toBe(true);
  const unknown = await gql(link('cust_missing'));
  expect(unknown.json.errors).toBeUndefined();
  expect(unknown.json.data.createCustomerPortalLink).toMatchObject({ customerPortalLink: null, userErrors: [{ code: 'not_found' }] });

  const other = await service.createStore('Other');
  const foreign = await api(service.testUrl, other.test_api_key)('POST', '/v1/customers/billing', { customer_id: customerId });
  expect(foreign.status).toBe(404);
  expect(foreign.json.code).toBe('not_found');
  const missing = await rest('POST', '/v1/customers/billing', {});
  expect(missing.status).toBe(400);
  expect(missing.json.code).toBe('validation_failed');
});
