import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { inTransaction } from '../../src/db/tenant.js';
import { issueLicense } from '../../src/modules/licenses/licenses.service.js';
import { makeCustomer, makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Licenses through the official client (which validates every answer against its models)
 * and through plain HTTP where the client cannot express the check (concurrency, statuses).
 */
describe('licenses over /v1 and GraphQL', () => {
  let service: TestService;
  let client: Creem;
  let testKey: string;
  let ctx: RequestContext;
  let productId: string;
  let customerId: string;

  async function issue(activationLimit: number | null, expiresInDays: number | null = null, customer = customerId) {
    return inTransaction(ctx, (tx) => issueLicense(tx, { productId, customerId: customer, orderId: null, subscriptionId: null, activationLimit, expiresInDays }));
  }

  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Acme');
    testKey = store.test_api_key;
    client = new Creem({ apiKey: testKey, serverURL: service.testUrl });
    ctx = service.contextOf(store);
    const product = await makeProduct(ctx, {
      name: 'Desktop app',
      price: 4900,
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 3, expires_in_days: 365 } }],
    });
    productId = product.id;
    customerId = (await makeCustomer(ctx, { email: 'buyer@example.com' })).id;
  });
  afterAll(() => service?.close());

  it('activates, validates, lists and deactivates through the official client', async () => {
    const license = await issue(3, 365);
    const activated = await client.licenses.activate({ key: license.key, instanceName: 'MacBook' });
    expect(activated).toMatchObject({
      id: license.id,
      object: 'license',
      mode: 'test',
      productId,
      status: 'active',
      key: license.key,
      activation: 1,
      activationLimit: 3,
      expiresAt: license.expiresAt,
      instance: { object: 'license-instance', mode: 'test', name: 'MacBook', status: 'active' },
    });
    const instanceId = activated.instance!.id;

    const validated = await client.licenses.validate({ key: license.key, instanceId });
    expect(validated).toMatchObject({ status: 'active', activation: 1, instance: { id: instanceId, status: 'active' } });

    await client.licenses.activate({ key: license.key, instanceName: 'Desktop' });
    const instances = await client.licenses.listInstances(license.id, 1, 10);
    expect(instances.result.items.map((i) => i.name)).toEqual(['Desktop', 'MacBook']);
    expect(instances.result.pagination).toMatchObject({ totalRecords: 2, currentPage: 1 });

    const deactivated = await client.licenses.deactivate({ key: license.key, instanceId });
    expect(deactivated).toMatchObject({ activation: 1, instance: { id: instanceId, status: 'deactivated' } });
    await expect(client.licenses.deactivate({ key: license.key, instanceId })).rejects.toMatchObject({ statusCode: 400 });

    const listed = await client.customers.listLicenses(customerId, 1, 50);
    expect(listed.items.find((l) => l.id === license.id)).toMatchObject({ key: license.key, activation: 1, instance: null });
  });

  it('lets exactly `limit` of 10 concurrent activations through', async () => {
    const license = await issue(3);
    const rest = api(service.testUrl, testKey);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => rest('POST', '/v1/licenses/activate', { key: license.key, instance_name: `device ${i}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(3).fill(200), ...Array(7).fill(400)]);
    for (const refused of answers.filter((a) => a.status === 400)) {
      expect(refused.json.message).toEqual(['key: activation limit of 3 reached']);
    }
    const stored = await service.db.prisma.license.findUniqueOrThrow({ where: { id: license.id }, include: { instances: true } });
    expect(stored.activationCount).toBe(3);
    expect(stored.instances).toHaveLength(3);
    expect(answers.filter((a) => a.status === 200).map((a) => a.json.activation).sort()).toEqual([1, 2, 3]);
  });

  it('tells an expired key apart from an unknown one', async () => {
    const license = await issue(3, 30);
    const rest = api(service.testUrl, testKey);
    const activated = await rest('POST', '/v1/licenses/activate', { key: license.key, instance_name: 'laptop' });
    const expiredAt = new Date(Date.now() - 60_000);
    await service.db.prisma.license.update({ where: { id: license.id }, data: { expiresAt: expiredAt } });

    const validated = await client.licenses.validate({ key: license.key, instanceId: activated.json.instance.id });
    expect(validated).toMatchObject({ status: 'expired', expiresAt: expiredAt });
    const refused = await rest('POST', '/v1/licenses/activate', { key: license.key, instance_name: 'desktop' });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toEqual([`key: license key expired on ${expiredAt.toISOString()}`]);
    const unknown = await rest('POST', '/v1/licenses/validate', { key: 'AAAAA-BBBBB-CCCCC-DDDDD-EEEEE', instance_id: activated.json.instance.id });
    expect(unknown.status).toBe(404);
  });

  it('answers 404 for keys, licenses and customers of another store or environment', async () => {
    const license = await issue(3);
    const activated = await client.licenses.activate({ key: license.key, instanceName: 'laptop' });
    const other = await service.createStore('Other');
    const stranger = new Creem({ apiKey: other.test_api_key, serverURL: service.testUrl });
    const prodRest = api(service.prodUrl, (await service.createStore('Prod only')).prod_api_key);
    await expect(stranger.licenses.activate({ key: license.key, instanceName: 'x' })).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.licenses.validate({ key: license.key, instanceId: activated.instance!.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.licenses.deactivate({ key: license.key, instanceId: activated.instance!.id })).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.licenses.listInstances(license.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(stranger.customers.listLicenses(customerId)).rejects.toMatchObject({ statusCode: 404 });
    expect((await prodRest('POST', '/v1/licenses/activate', { key: license.key, instance_name: 'x' })).status).toBe(404);
    expect((await service.db.prisma.license.findUniqueOrThrow({ where: { id: license.id } })).activationCount).toBe(1);
  });

  it('rejects a bad instance_name with 400 naming the field', async () => {
    const license = await issue(3);
    const rest = api(service.testUrl, testKey);
    const res = await rest('POST', '/v1/licenses/activate', { key: license.key, instance_name: '' });
    expect(res.status).toBe(400);
    expect(res.json.message[0]).toMatch(/^instance_name: /);
    expect(await service.db.prisma.licenseInstance.count({ where: { licenseId: license.id } })).toBe(0);
  });

  it('activates, validates and deactivates through GraphQL and lists a customer’s licenses', async () => {
    const customer = await makeCustomer(ctx, { email: 'gql@example.com' });
    const older = await issue(2, null, customer.id);
    const license = await issue(2, null, customer.id);
    const gql = (query: string, variables: Record<string, unknown>) =>
      api(service.testUrl, testKey)('POST', '/graphql', { query, variables }).then((r) => r.json as { data?: any; errors?: any[] });

    const act = await gql(
      `mutation($key: String!, $name: String!) { activateLicense(input: { key: $key, instanceName: $name }) { instance { id name status license { id status activation activationLimit } } userErrors { code } } }`,
      { key: license.key, name: 'workstation' },
    );
    expect(act.errors).toBeUndefined();
    expect(act.data.activateLicense.userErrors).toEqual([]);
    expect(act.data.activateLicense.instance).toMatchObject({ name: 'workstation', status: 'active', license: { id: license.id, status: 'active', activation: 1, activationLimit: 2 } });
    const instanceId = act.data.activateLicense.instance.id;
    expect(instanceId).toMatch(/^lici_/);

    const val = await gql(`mutation($key: String!, $id: ID!) { validateLicense(input: { key: $key, instanceId: $id }) { instance { id license { status } } } }`, { key: license.key, id: instanceId });
    expect(val.data.validateLicense.instance).toEqual({ id: instanceId, license: { status: 'active' } });
    const nodeQuery = `query($id: ID!) { node(id: $id) { ... on LicenseInstance { id license { id } } } }`;
    expect((await gql(nodeQuery, { id: instanceId })).data.node).toEqual({ id: instanceId, license: { id: license.id } });
    const strangerKey = (await service.createStore('Stranger')).test_api_key;
    const foreign = await api(service.testUrl, strangerKey)('POST', '/graphql', { query: nodeQuery, variables: { id: instanceId } });
    expect(foreign.json).toEqual({ data: { node: null } });

    const deactivate = `mutation($key: String!, $id: ID!) { deactivateLicense(input: { key: $key, instanceId: $id }) { instance { status license { activation status } } userErrors { field code } } }`;
    const deact = await gql(deactivate, { key: license.key, id: instanceId });
    expect(deact.data.deactivateLicense).toEqual({ instance: { status: 'deactivated', license: { activation: 0, status: 'inactive' } }, userErrors: [] });
    const again = await gql(deactivate, { key: license.key, id: instanceId });
    expect(again.data.deactivateLicense).toEqual({ instance: null, userErrors: [{ field: 'instanceId', code: 'instance_already_deactivated' }] });

    const listed = await gql(
      `query($id: ID!) { customer(id: $id) { licenses(first: 10) { totalCount edges { node { id product { id } instances(first: 5) { totalCount edges { node { id status } } } } } } } }`,
      { id: customer.id },
    );
    expect(listed.errors).toBeUndefined();
    const conn = listed.data.customer.licenses;
    expect(conn.totalCount).toBe(2);
    expect(conn.edges.map((e: any) => e.node.id)).toEqual([license.id, older.id]);
    expect(conn.edges[0].node.product.id).toBe(productId);
    expect(conn.edges[0].node.instances).toEqual({ totalCount: 1, edges: [{ node: { id: instanceId, status: 'deactivated' } }] });
  });
});
