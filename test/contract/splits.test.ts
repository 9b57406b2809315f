import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProduct } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Revenue splits over /v1: the official client's four splits* operations (it validates every
 * answer against its models), the spec's rules, and another store's splits being invisible.
 */
describe('revenue splits over /v1', () => {
  let service: TestService;
  let client: Creem;
  let call: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;
  let storeId: string;
  let partner: string;
  let second: string;
  let productId: string;
  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Seller');
    storeId = store.id;
    client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
    call = api(service.testUrl, store.test_api_key);
    const otherStore = await service.createStore('Other seller');
    other = api(service.testUrl, otherStore.test_api_key);
    partner = (await service.createStore('Partner')).id;
    second = (await service.createStore('Second partner')).id;
    productId = (await makeProduct(service.contextOf(store))).id;
  });
  afterAll(() => service?.close());

  it('creates, lists, retrieves and deletes through the official client', async () => {
    const split = await client.splits.create({
      type: 'store',
      typeReference: storeId,
      description: 'Co-founders',
      recipients: [
        { recipientType: 'store', recipientReference: partner, amount: 25 },
        { recipientType: 'store', recipientReference: second, amount: 12.5 },
      ],
    });
    expect(split).toMatchObject({ object: 'split', storeId, type: 'store', typeReference: storeId, enabled: true, description: 'Co-founders', mode: 'test' });
    expect(split.recipients.map((r) => [r.recipientType, r.recipientReference, r.amount, r.enabled])).toEqual([
      ['store', partner, 25, true],
      ['store', second, 12.5, true],
    ]);
    expect(await client.splits.retrieve(split.id)).toMatchObject({ id: split.id, recipients: split.recipients });

    const invited = await client.splits.create({ type: 'product', typeReference: productId, recipients: [{ recipientType: 'email', recipientReference: 'Jane.Doe@Example.com', amount: 40 }] });
    // Only invitees: the split waits for the first to accept; their address is never shown.
    expect(invited).toMatchObject({ type: 'product', typeReference: productId, enabled: false });
    expect(invited.recipients).toEqual([{ type: 'percentage', recipientType: 'email', recipientReference: 'j***@example.com', amount: 40, enabled: false, inviteStatus: 'pending' }]);

    const page = (await client.splits.list(1, 10)).result;
    expect(page.items.map((s) => s.id)).toEqual([invited.id, split.id]);
    expect(page.pagination).toMatchObject({ totalRecords: 2, currentPage: 1 });

    const deleted = await client.splits.delete(split.id);
    expect(deleted).toMatchObject({ id: split.id, enabled: false });
    expect((await call('GET', `/v1/splits/${split.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/splits/${split.id}`)).status).toBe(404);
    expect((await client.splits.list()).result.items.map((s) => s.id)).toEqual([invited.id]);
  });

  it('refuses what the spec rules out, naming the field, and creates nothing', async () => {
    const attempt = (body: Record<string, unknown>) => call('POST', '/v1/splits', { type: 'store', type_reference: storeId, ...body });
    const cases: [Record<string, unknown>, string][] = [
      [{ recipients: [] }, 'recipients'],
      [{ recipients: Array.from({ length: 11 }, (_, i) => ({ recipient_type: 'email', recipient_reference: `p${i}@example.com`, amount: 1 })) }, 'recipients'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 60 }, { recipient_type: 'store', recipient_reference: second, amount: 40.01 }] }, 'recipients'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 0.5 }] }, 'recipients[0].amount'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 10.125 }] }, 'recipients[0].amount'],
      [{ recipients: [{ recipient_type: 'email', recipient_reference: 'not-an-address', amount: 10 }] }, 'recipients[0].recipient_reference'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: 'sto_01JZZZZZZZZZZZZZZZZZZZZZZZ', amount: 10 }] }, 'recipients[0].recipient_reference'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: storeId, amount: 10 }] }, 'recipients[0].recipient_reference'],
      [{ recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 10 }, { recipient_type: 'store', recipient_reference: partner, amount: 10 }] }, 'recipients[1].recipient_reference'],
      [{ type_reference: partner, recipients: [{ recipient_type: 'store', recipient_reference: second, amount: 10 }] }, 'type_reference'],
      [{ type: 'product', type_reference: 'prod_01JZZZZZZZZZZZZZZZZZZZZZZZ', recipients: [{ recipient_type: 'store', recipient_reference: second, amount: 10 }] }, 'type_reference'],
    ];
    const before = (await call('GET', '/v1/splits?page_size=100')).json.pagination.total_records;
    for (const [body, param] of cases) {
      const res = await attempt(body);
      expect([param, res.status, res.json.message[0].split(':')[0]]).toEqual([param, 400, param]);
    }
    expect((await call('GET', '/v1/splits?page_size=100')).json.pagination.total_records).toBe(before);
    // A payment's recipients take 100 % at most across splits: the product split of 40 % leaves 60 for store splits.
    const over = await attempt({ recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 60.01 }] });
    expect([over.status, over.json.message[0]]).toEqual([400, expect.stringContaining('recipients: other splits already take 40 %')]);
    // Exactly 100 in all is allowed.
    const fresh = (await makeProduct(service.contextOf({ id: storeId }))).id;
    const full = await attempt({ type: 'product', type_reference: fresh, recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 60 }, { recipient_type: 'store', recipient_reference: second, amount: 40 }] });
    expect(full.status).toBe(200);
    expect((await call('DELETE', `/v1/splits/${full.json.id}`)).status).toBe(200);
  });

  it("keeps each store's splits to itself", async () => {
    const mine = (await call('POST', '/v1/splits', { type: 'store', type_reference: storeId, recipients: [{ recipient_type: 'store', recipient_reference: partner, amount: 5 }] })).json.id as string;
    expect((await other('GET', `/v1/splits/${mine}`)).status).toBe(404);
    expect((await other('DELETE', `/v1/splits/${mine}`)).status).toBe(404);
    expect((await other('GET', '/v1/splits')).json.items).toEqual([]);
    expect((await call('GET', `/v1/splits/${mine}`)).status).toBe(200);
  });

  it('runs through GraphQL: createSplit, the split as a node and in the connection, deleteSplit, userErrors naming the field', async () => {
    const gql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await call('POST', '/graphql', { query, variables });
      expect(res.json.errors, JSON.stringify(res.json.errors)).toBeUndefined();
      return res.json.data;
    };
    const created = await gql(
      `mutation($input: CreateSplitInput!) { createSplit(input: $input) { split { id type typeReference enabled recipients { recipientType recipientReference percent enabled inviteStatus } } userErrors { field code } } }`,
      { input: { type: 'store', typeReference: storeId, recipients: [{ recipientType: 'store', recipientReference: partner, amount: 7.5 }, { recipientType: 'email', recipientReference: 'ann@example.org', amount: 2.5 }] } },
    );
    const split = created.createSplit.split;
    expect(created.createSplit.userErrors).toEqual([]);
    expect(split).toMatchObject({ type: 'store', typeReference: storeId, enabled: true });
    expect(split.recipients).toEqual([
      { recipientType: 'store', recipientReference: partner, percent: 7.5, enabled: true, inviteStatus: null },
      { recipientType: 'email', recipientReference: 'a***@example.org', percent: 2.5, enabled: false, inviteStatus: 'pending' },
    ]);
    const read = await gql(`query($id: ID!) { node(id: $id) { ... on Split { id recipients { percent } } } splits(first: 50) { edges { node { id } } } }`, { id: split.id });
    expect(read.node.id).toBe(split.id);
    expect(read.splits.edges.map((e: { node: { id: string } }) => e.node.id)).toContain(split.id);
    const refused = await gql(`mutation { createSplit(input: { type: store, typeReference: "${storeId}", recipients: [{ recipientType: store, recipientReference: "${partner}", amount: 101 }] }) { split { id } userErrors { field code } } }`);
    expect(refused.createSplit.split).toBeNull();
    expect(refused.createSplit.userErrors, JSON.stringify(refused)).toContainEqual({ field: 'recipients[0].amount', code: 'validation_failed' });
    const deleted = await gql(`mutation($id: ID!) { deleteSplit(input: { id: $id }) { split { id enabled } userErrors { field } } }`, { id: split.id });
    expect(deleted.deleteSplit).toEqual({ split: { id: split.id, enabled: false }, userErrors: [] });
    expect((await gql(`query($id: ID!) { node(id: $id) { id } }`, { id: split.id })).node).toBeNull();
  });
});
