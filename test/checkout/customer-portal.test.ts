import { Creem } from 'creem';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';

let service: TestService;
let client: Creem;
let key: string;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  service = await startTestService({ clock });
  const store = await service.createStore('Acme');
  key = store.test_api_key;
  client = new Creem({ apiKey: key, serverURL: service.testUrl });
});
afterAll(() => service?.close());

it('a billing link opens a page with the customer’s subscriptions, orders and license keys, for an hour', async () => {
  const rest = api(service.testUrl, key);
  const app = await rest('POST', '/v1/products', {
    name: 'Desktop <App>',
    description: 'x',
    price: 3000,
    currency: 'EUR',
    billing_type: 'recurring',
    billing_period: 'every-year',
    features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 2 } }],
  });
  const checkout = await client.checkouts.create({ productId: app.json.id });
  const paid = await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl!, BUYER);
  const customerId = new URL(paid.location!).searchParams.get('customer_id')!;
  const license = (await client.checkouts.retrieve(checkout.id)).licenseKeys![0]!;

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
  const viaGraphql = await gql(`mutation { createCustomerPortalLink(customerId: "${customerId}") }`);
  expect(viaGraphql.json.data.createCustomerPortalLink.startsWith(`${service.testUrl}/portal/${customerId}?`)).toBe(true);
  const unknown = await gql(`mutation { createCustomerPortalLink(customerId: "cust_missing") }`);
  expect(unknown.json.errors[0].extensions.code).toBe('NOT_FOUND');

  const other = await service.createStore('Other');
  expect((await api(service.testUrl, other.test_api_key)('POST', '/v1/customers/billing', { customer_id: customerId })).status).toBe(404);
  expect((await rest('POST', '/v1/customers/billing', {})).status).toBe(400);
});
