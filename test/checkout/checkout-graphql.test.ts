import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { api, startTestService, type TestService } from '../support/service.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';
import { makeRecurringProduct } from '../support/factories.js';

let service: TestService;
let key: string;
let seller: RequestContext;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Acme');
  key = store.test_api_key;
  seller = service.contextOf(store);
});
afterAll(() => service?.close());

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const res = await api(service.testUrl, key)('POST', '/graphql', { query, variables });
  return res.json as { data: any; errors?: { message: string; extensions: { code: string } }[] };
}

it('creates a checkout by mutation and reads the purchase as one graph', async () => {
  const product = await makeRecurringProduct(seller, {
    name: 'Studio',
    description: 'x',
    price: 1200,
    currency: 'USD',
    features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 1 } }],
  });
  const created = await gql(
    `mutation($input: CreateCheckoutInput!) { createCheckout(input: $input) {
        checkout { id status checkoutUrl units requestId product { id name } }
        userErrors { field message code } } }`,
    { input: { productId: product.id, requestId: 'gql-1', units: 1, metadata: { source: 'graphql' } } },
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createCheckout.userErrors).toEqual([]);
  const checkout = created.data.createCheckout.checkout;
  expect(checkout).toMatchObject({ status: 'pending', requestId: 'gql-1', product: { id: product.id, name: 'Studio' } });
  expect(checkout.id).toMatch(/^ch_/);

  expect((await new CheckoutBrowser(service.testUrl).pay(checkout.checkoutUrl, BUYER)).status).toBe(303);

  const read = await gql(
    `query($id: ID!) { checkout(id: $id) { status metadata
        order { id amountPaid { amount currency } status }
        subscription { id status product { id } transactions { totalCount edges { node { type status amount { amount currency } } } } }
        customer { email
          subscriptions { totalCount edges { node { status } } }
          orders { totalCount }
          licenses { totalCount edges { node { key activationLimit } } } }
        licenseKeys { key status } } }`,
    { id: checkout.id },
  );
  expect(read.errors).toBeUndefined();
  const c = read.data.checkout;
  expect(c).toMatchObject({
    status: 'completed',
    metadata: { source: 'graphql' },
    order: { amountPaid: { amount: '1200', currency: 'USD' }, status: 'paid' },
    subscription: {
      status: 'active',
      product: { id: product.id },
      transactions: { totalCount: 1, edges: [{ node: { type: 'invoice', status: 'paid', amount: { amount: '1200', currency: 'USD' } } }] },
    },
    customer: { email: BUYER.email, subscriptions: { totalCount: 1 }, orders: { totalCount: 1 }, licenses: { totalCount: 1 } },
  });
  expect(c.licenseKeys).toHaveLength(1);
  expect(c.licenseKeys[0].key).toBe(c.customer.licenses.edges[0].node.key);

  const activate = `mutation($input: ActivateLicenseInput!) { activateLicense(input: $input) {
      instance { name status license { activation } } userErrors { field message code } } }`;
  const activated = await gql(activate, { input: { key: c.licenseKeys[0].key, instanceName: 'laptop' } });
  expect(activated.errors).toBeUndefined();
  expect(activated.data.activateLicense).toEqual({ instance: { name: 'laptop', status: 'active', license: { activation: 1 } }, userErrors: [] });
  const again = await gql(activate, { input: { key: c.licenseKeys[0].key, instanceName: 'desktop' } });
  expect(again.errors).toBeUndefined();
  expect(again.data.activateLicense.instance).toBeNull();
  expect(again.data.activateLicense.userErrors).toHaveLength(1);
  expect(again.data.activateLicense.userErrors[0]).toMatchObject({ field: 'key', code: 'activation_limit_reached' });
  expect(again.data.activateLicense.userErrors[0].message).toContain('activation limit of 1 reached');
});

it('createCheckout rejects bad input with the same rules as REST', async () => {
  const res = await gql(`mutation { createCheckout(input: { productId: "prod_missing", units: 0 }) { checkout { id } userErrors { field message code } } }`);
  expect(res.errors).toBeUndefined();
  expect(res.data.createCheckout.checkout).toBeNull();
  expect(res.data.createCheckout.userErrors).toContainEqual(expect.objectContaining({ field: 'units', code: 'validation_failed' }));
  // REST refuses the same input with the same code, naming the same field.
  const rest = await api(service.testUrl, key)('POST', '/v1/checkouts', { product_id: 'prod_missing', units: 0 });
  expect(rest.status).toBe(400);
  expect(rest.json.code).toBe('validation_failed');
  expect(rest.json.message.join(' ')).toContain('units');
});
