import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';

let service: TestService;
let key: string;

beforeAll(async () => {
  service = await startTestService();
  key = (await service.createStore('Acme')).test_api_key;
});
afterAll(() => service?.close());

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await api(service.testUrl, key)('POST', '/graphql', { query, variables });
  return res.json as { data: any; errors?: { message: string; extensions: { code: string } }[] };
}

it('creates a checkout by mutation and reads the purchase as one graph', async () => {
  const product = await api(service.testUrl, key)('POST', '/v1/products', {
    name: 'Studio',
    description: 'x',
    price: 1200,
    currency: 'USD',
    billing_type: 'recurring',
    billing_period: 'every-month',
    features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 1 } }],
  });
  const created = await gql(
    `mutation($input: CreateCheckoutInput!) { createCheckout(input: $input) { apiId status checkoutUrl units requestId product { apiId name } } }`,
    { input: { productId: product.json.id, requestId: 'gql-1', units: 1, metadata: { source: 'graphql' } } },
  );
  expect(created.errors).toBeUndefined();
  const checkout = created.data.createCheckout;
  expect(checkout).toMatchObject({ status: 'pending', requestId: 'gql-1', product: { apiId: product.json.id, name: 'Studio' } });

  expect((await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl, BUYER)).status).toBe(303);

  const read = await gql(
    `query($id: ID!) { checkout(id: $id) { status metadata
        order { apiId amountPaid status }
        subscription { apiId status product { apiId } transactions { totalCount edges { node { type status amount } } } }
        customer { email
          subscriptions { totalCount edges { node { status } } }
          orders { totalCount }
          licenses { totalCount edges { node { key activationLimit } } } }
        licenseKeys { key status } } }`,
    { id: checkout.apiId },
  );
  expect(read.errors).toBeUndefined();
  const c = read.data.checkout;
  expect(c).toMatchObject({
    status: 'completed',
    metadata: { source: 'graphql' },
    order: { amountPaid: 1200, status: 'paid' },
    subscription: { status: 'active', product: { apiId: product.json.id }, transactions: { totalCount: 1, edges: [{ node: { type: 'invoice', status: 'paid', amount: 1200 } }] } },
    customer: { email: BUYER.email, subscriptions: { totalCount: 1 }, orders: { totalCount: 1 }, licenses: { totalCount: 1 } },
  });
  expect(c.licenseKeys).toHaveLength(1);
  expect(c.licenseKeys[0].key).toBe(c.customer.licenses.edges[0].node.key);

  const activated = await gql(`mutation($key: String!) { activateLicense(key: $key, instanceName: "laptop") { name status license { activation } } }`, {
    key: c.licenseKeys[0].key,
  });
  expect(activated.errors).toBeUndefined();
  expect(activated.data.activateLicense).toMatchObject({ name: 'laptop', status: 'active', license: { activation: 1 } });
  const again = await gql(`mutation($key: String!) { activateLicense(key: $key, instanceName: "desktop") { name } }`, { key: c.licenseKeys[0].key });
  expect(again.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  expect(again.errors?.[0]?.message).toContain('activation limit of 1 reached');
});

it('createCheckout rejects bad input with the same rules as REST', async () => {
  const res = await gql(`mutation { createCheckout(input: { productId: "prod_missing", units: 0 }) { apiId } }`);
  expect(res.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  expect(res.errors?.[0]?.message).toContain('units');
});
