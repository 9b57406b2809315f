import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePaidCheckout, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * One operation contract, two surfaces: each operation is driven through REST and through its
 * GraphQL mutation with the same input. Successes must leave the same resource (compared as
 * REST renders it, ids and times aside); refusals must carry the same error code, naming the
 * same fields (snake_case on REST, camelCase on GraphQL).
 */

type Outcome = { ok: true; id: string } | { ok: false; code: string; fields: string[] };

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

describe('REST and GraphQL run the same operations', () => {
  let service: TestService;
  let rest: ReturnType<typeof api>;
  let productId: string;
  let archivedId: string;
  let licenseKey: string;

  /** REST answer as an outcome: the id of the resource, or the code and fields of the refusal. */
  async function viaRest(method: string, path: string, body?: unknown, id = (json: any) => json.id as string): Promise<Outcome> {
    const res = await rest(method, path, body);
    if (res.status === 200) return { ok: true, id: id(res.json) };
    return { ok: false, code: res.json.code, fields: (res.json.message as string[]).filter((m) => /^[\w.[\]]+: /.test(m)).map((m) => camel(m.split(':')[0]!)).sort() };
  }

  /** GraphQL answer as an outcome: the payload's object id, or its userErrors' code and fields. */
  async function viaGraphql(mutation: string, input: Record<string, unknown>, objectField: string): Promise<Outcome> {
    const res = await rest('POST', '/graphql', { query: `mutation($input: ${mutation[0]!.toUpperCase()}${mutation.slice(1)}Input!) { ${mutation}(input: $input) { ${objectField} { id } userErrors { field code } } }`, variables: { input } });
    expect(res.json.errors, JSON.stringify(res.json.errors)).toBeUndefined();
    const payload = res.json.data[mutation];
    if (!payload.userErrors.length) return { ok: true, id: payload[objectField].id };
    const codes = new Set(payload.userErrors.map((e: any) => e.code));
    expect(codes.size).toBe(1);
    return { ok: false, code: [...codes][0] as string, fields: payload.userErrors.map((e: any) => e.field).filter(Boolean).sort() };
  }

  /** The resource as REST renders it, without what differs between two creations. */
  async function rendered(path: string): Promise<unknown> {
    const { json } = await rest('GET', path);
    return JSON.parse(JSON.stringify(json), (k, v) => (/^(id|created_at|updated_at|product_url|checkout_url|code|customer_id)$/.test(k) ? undefined : v));
  }

  beforeAll(async () => {
    service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    const store = await service.createStore('Parity');
    rest = api(service.testUrl, store.test_api_key);
    const ctx = service.contextOf(store);
    productId = (await makeProduct(ctx, { name: 'Book', price: 1500, features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 1 } }] })).id;
    archivedId = (await makeProduct(ctx, { name: 'Old' })).id;
    await rest('DELETE', `/v1/products/${archivedId}`);
    const paid = await makePaidCheckout(ctx, productId);
    licenseKey = paid.order!.licenses[0]!.key;
    await rest('POST', '/v1/licenses/activate', { key: licenseKey, instance_name: 'first' });
  });
  afterAll(() => service?.close());

  it('products: create, update, archive', async () => {
    const body = { name: 'Pro', price: 2900, currency: 'EUR', billing_type: 'recurring', billing_period: 'every-month', tax_mode: 'exclusive', custom_fields: [{ type: 'text', key: 'team', label: 'Team' }] };
    const input = { name: 'Pro', price: '2900', currency: 'EUR', billingType: 'recurring', billingPeriod: 'every_month', taxMode: 'exclusive', customFields: [{ type: 'text', key: 'team', label: 'Team' }] };
    const [r, g] = [await viaRest('POST', '/v1/products', body), await viaGraphql('createProduct', input, 'product')];
    expect(r.ok && g.ok).toBe(true);
    if (!r.ok || !g.ok) return;
    expect(await rendered(`/v1/products/${g.id}`)).toEqual(await rendered(`/v1/products/${r.id}`));

    expect(await viaGraphql('createProduct', { ...input, billingPeriod: null }, 'product')).toEqual(await viaRest('POST', '/v1/products', { ...body, billing_period: undefined }));
    expect(await viaGraphql('createProduct', { ...input, price: '50' }, 'product')).toEqual(await viaRest('POST', '/v1/products', { ...body, price: 50 }));

    await viaRest('PATCH', `/v1/products/${r.id}`, { price: 3900, name: 'Pro+' });
    await viaGraphql('updateProduct', { id: g.id, price: '3900', name: 'Pro+' }, 'product');
    expect(await rendered(`/v1/products/${g.id}`)).toEqual(await rendered(`/v1/products/${r.id}`));
    expect(await viaGraphql('updateProduct', { id: g.id, trialPrice: '50' }, 'product')).toEqual(await viaRest('PATCH', `/v1/products/${r.id}`, { trial_price: 50 }));
    const unknown = 'prod_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    expect(await viaGraphql('updateProduct', { id: unknown, name: 'x' }, 'product')).toEqual(await viaRest('PATCH', `/v1/products/${unknown}`, { name: 'x' }));

    await viaRest('DELETE', `/v1/products/${r.id}`);
    await viaGraphql('archiveProduct', { id: g.id }, 'product');
    expect(await rendered(`/v1/products/${g.id}`)).toEqual(await rendered(`/v1/products/${r.id}`));
  });

  it('customers: create, update', async () => {
    const r = await viaRest('POST', '/v1/customers', { email: 'rest@example.com', name: 'Ada', country: 'DE', metadata: { tier: 'gold' } });
    const g = await viaGraphql('createCustomer', { email: 'gql@example.com', name: 'Ada', country: 'DE', metadata: { tier: 'gold' } }, 'customer');
    expect(r.ok && g.ok).toBe(true);
    if (!r.ok || !g.ok) return;
    const view = async (id: string) => ({ ...(await rendered(`/v1/customers?customer_id=${id}`) as object), email: undefined });
    expect(await view(g.id)).toEqual(await view(r.id));
    expect(await viaGraphql('createCustomer', { email: 'rest@example.com' }, 'customer')).toEqual(await viaRest('POST', '/v1/customers', { email: 'gql@example.com' }));
    expect(await viaGraphql('createCustomer', { email: 'x@example.com', country: 'germany' }, 'customer')).toEqual(await viaRest('POST', '/v1/customers', { email: 'y@example.com', country: 'germany' }));

    await viaRest('PATCH', '/v1/customers', { customer_id: r.id, metadata: { seats: 3, tier: null } });
    await viaGraphql('updateCustomer', { id: g.id, metadata: { seats: 3, tier: null } }, 'customer');
    expect(await view(g.id)).toEqual(await view(r.id));
    const unknown = 'cust_01HZZZZZZZZZZZZZZZZZZZZZZZ';
    expect(await viaGraphql('updateCustomer', { id: unknown, name: 'x' }, 'customer')).toEqual(await viaRest('PATCH', '/v1/customers', { customer_id: unknown, name: 'x' }));
  });

  it('discounts: create, delete', async () => {
    const r = await viaRest('POST', '/v1/discounts', { name: 'Spring', code: 'SPRING-R', type: 'fixed', amount: 500, currency: 'EUR', duration: 'repeating', duration_in_months: 3, applies_to_products: [productId] });
    const g = await viaGraphql('createDiscount', { name: 'Spring', code: 'SPRING-G', type: 'fixed', amount: '500', currency: 'EUR', duration: 'repeating', durationInMonths: 3, appliesToProducts: [productId] }, 'discount');
    expect(r.ok && g.ok).toBe(true);
    if (!r.ok || !g.ok) return;
    expect(await rendered(`/v1/discounts?discount_id=${g.id}`)).toEqual(await rendered(`/v1/discounts?discount_id=${r.id}`));
    expect(await viaGraphql('createDiscount', { name: 'Dup', code: 'spring-r', type: 'percentage', percentage: 5, duration: 'once' }, 'discount')).toEqual(
      await viaRest('POST', '/v1/discounts', { name: 'Dup', code: 'spring-g', type: 'percentage', percentage: 5, duration: 'once' }),
    );
    expect(await viaGraphql('createDiscount', { name: 'Bad', type: 'fixed', amount: '100', duration: 'once' }, 'discount')).toEqual(
      await viaRest('POST', '/v1/discounts', { name: 'Bad', type: 'fixed', amount: 100, duration: 'once' }),
    );
    await viaRest('DELETE', `/v1/discounts/${r.id}/delete`);
    await viaGraphql('deleteDiscount', { id: g.id }, 'discount');
    expect(await rendered(`/v1/discounts?discount_id=${g.id}`)).toEqual(await rendered(`/v1/discounts?discount_id=${r.id}`));
  });

  it('checkouts: create', async () => {
    const r = await viaRest('POST', '/v1/checkouts', { product_id: productId, units: 2, request_id: 'cart-1', metadata: { cart: 1 } });
    const g = await viaGraphql('createCheckout', { productId, units: 2, requestId: 'cart-1', metadata: { cart: 1 } }, 'checkout');
    expect(r.ok && g.ok).toBe(true);
    if (!r.ok || !g.ok) return;
    expect(await rendered(`/v1/checkouts?checkout_id=${g.id}`)).toEqual(await rendered(`/v1/checkouts?checkout_id=${r.id}`));
    expect(await viaGraphql('createCheckout', { productId: archivedId }, 'checkout')).toEqual(await viaRest('POST', '/v1/checkouts', { product_id: archivedId }));
    expect(await viaGraphql('createCheckout', { productId, units: 0 }, 'checkout')).toEqual(await viaRest('POST', '/v1/checkouts', { product_id: productId, units: 0 }));
  });

  it('webhook endpoints: create, update, delete', async () => {
    const r = await viaRest('POST', '/v1/webhooks', { url: 'https://example.com/r', name: 'Hook', events: ['checkout.completed', 'subscription.paid'] });
    const g = await viaGraphql('createWebhookEndpoint', { url: 'https://example.com/r', name: 'Hook', events: ['checkout_completed', 'subscription_paid'] }, 'endpoint');
    expect(r.ok && g.ok).toBe(true);
    if (!r.ok || !g.ok) return;
    expect(await rendered(`/v1/webhooks/${g.id}`)).toEqual(await rendered(`/v1/webhooks/${r.id}`));
    expect(await viaGraphql('createWebhookEndpoint', { url: 'ftp://example.com' }, 'endpoint')).toEqual(await viaRest('POST', '/v1/webhooks', { url: 'ftp://example.com' }));
    await viaRest('PATCH', `/v1/webhooks/${r.id}`, { status: 'disabled', events: ['refund.created'] });
    await viaGraphql('updateWebhookEndpoint', { id: g.id, status: 'disabled', events: ['refund_created'] }, 'endpoint');
    expect(await rendered(`/v1/webhooks/${g.id}`)).toEqual(await rendered(`/v1/webhooks/${r.id}`));
    await viaRest('DELETE', `/v1/webhooks/${r.id}`);
    await viaGraphql('deleteWebhookEndpoint', { id: g.id }, 'endpoint');
    expect(await viaGraphql('deleteWebhookEndpoint', { id: g.id }, 'endpoint')).toEqual(await viaRest('DELETE', `/v1/webhooks/${r.id}`));
  });

  it('licenses: a refusal carries the same code on both', async () => {
    expect(await viaGraphql('activateLicense', { key: licenseKey, instanceName: 'second' }, 'instance')).toEqual(
      await viaRest('POST', '/v1/licenses/activate', { key: licenseKey, instance_name: 'second' }),
    );
    expect(await viaGraphql('activateLicense', { key: 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE', instanceName: 'x' }, 'instance')).toEqual(
      await viaRest('POST', '/v1/licenses/activate', { key: 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE', instance_name: 'x' }),
    );
  });
});
