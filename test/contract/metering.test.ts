import { Creem } from 'creem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCustomer } from '../support/factories.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * Usage metering: the official client's twelve meters/events operations (it validates every
 * answer against its models), and the structured error body of /v1/meters and /v1/events.
 */
describe('usage metering over /v1', () => {
  let service: TestService;
  let client: Creem;
  let call: ReturnType<typeof api>;
  let other: ReturnType<typeof api>;
  let customerId: string;
  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Metering');
    client = new Creem({ apiKey: store.test_api_key, serverURL: service.testUrl });
    call = api(service.testUrl, store.test_api_key);
    other = api(service.testUrl, (await service.createStore('Other')).test_api_key);
    customerId = (await makeCustomer(service.contextOf(store), { email: 'usage@example.com', external_id: 'ext-usage-1' })).id;
  });
  afterAll(() => service?.close());

  it('runs all twelve operations through the official client', async () => {
    const meter = await client.meters.createMeter({ name: 'Tokens', eventName: 'llm.tokens', aggregation: 'sum', aggregationProperty: 'tokens', unitLabel: 'tokens' });
    expect(meter).toMatchObject({ name: 'Tokens', eventName: 'llm.tokens', aggregation: 'sum', aggregationProperty: 'tokens', status: 'active', filter: { conjunction: 'and', clauses: [] } });
    expect(await client.meters.getMeter(meter.id)).toMatchObject({ id: meter.id });
    const renamed = await client.meters.updateMeter(meter.id, { name: 'LLM tokens' });
    expect(renamed.name).toBe('LLM tokens');

    const ingested = await client.events.ingestEvents({
      events: [
        { name: 'llm.tokens', customerId, eventId: ' call-1 ', properties: { tokens: 120, model: 'small' } },
        { name: 'llm.tokens', externalCustomerId: 'ext-usage-1', eventId: 'call-2', properties: { tokens: '30' } },
        { name: 'llm.tokens', customerId, eventId: 'call-1', properties: { tokens: 999 } },
        { name: 'image.render', customerId, properties: {} },
      ],
    });
    expect(ingested.accepted).toBe(4);
    expect(ingested.eventIds.slice(0, 3)).toEqual(['call-1', 'call-2', 'call-1']);
    expect(ingested.warnings).toEqual([expect.objectContaining({ index: 3, code: 'no_matching_meter' })]);

    const consumed = await client.meters.getConsumedUnits(meter.id, customerId);
    expect(consumed).toMatchObject({ meterId: meter.id, customerId, units: '150' });
    expect(consumed.updatedAt).not.toBeNull();
    const replayed = await client.meters.getConsumedUnits(meter.id, customerId, new Date().toISOString());
    expect(replayed).toMatchObject({ units: '150', updatedAt: null });
    expect(replayed.asOf).toBeDefined();

    const preview = await client.events.previewEvents({ events: [{ name: 'llm.tokens', customerId, eventId: 'call-2', properties: { tokens: 1 } }, { name: 'llm.tokens', properties: {} }] });
    expect(preview.valid).toBe(false);
    expect(preview.events[0]).toMatchObject({ valid: true, eventId: 'call-2', customerId, duplicate: true, matchedMeters: [meter.id] });
    expect(preview.events[1]).toMatchObject({ valid: false, error: expect.objectContaining({ param: 'events[1].customer_id' }) });

    const listed: string[] = [];
    for await (const page of await client.events.listEvents(meter.id, undefined, undefined, 1)) listed.push(...page.result.data.map((e) => e.eventId));
    expect(listed).toEqual(['call-1', 'call-2']);
    expect((await client.events.listEvents(undefined, undefined, 'call-2')).result.data.map((e) => e.matchedMeters)).toEqual([[meter.id]]);

    const existing = await client.meters.previewExistingMeter(meter.id);
    expect(existing).toMatchObject({ matchedEvents: 2, units: '150', distinctCustomers: 1 });
    expect(existing.daily).toHaveLength(7);
    expect(existing.daily.at(-1)).toMatchObject({ date: new Date().toISOString().slice(0, 10), eventCount: 2, value: '150' });
    const candidate = await client.meters.previewMeter({ eventName: 'llm.tokens', aggregation: 'count', filter: { conjunction: 'and', clauses: [{ property: 'model', operator: 'equals', value: 'small' }] } });
    expect(candidate).toMatchObject({ matchedEvents: 1, units: '1' });

    const metersSeen: string[] = [];
    for await (const page of await client.meters.listMeters(1)) metersSeen.push(...page.result.data.map((m) => m.id));
    expect(metersSeen).toContain(meter.id);
    expect((await client.meters.archiveMeter(meter.id)).status).toBe('archived');
    expect((await client.meters.archiveMeter(meter.id)).status).toBe('archived');
    expect((await client.meters.listMeters()).result.data.map((m) => m.id)).not.toContain(meter.id);
    expect((await client.meters.listMeters(10, undefined, undefined, true)).result.data.map((m) => m.id)).toContain(meter.id);
    expect((await client.meters.unarchiveMeter(meter.id)).status).toBe('active');
  });

  it('answers a taken name with 409 meter_name_taken, naming an archived holder', async () => {
    const first = await call('POST', '/v1/meters', { name: 'Seats', event_name: 'seat', aggregation: 'count', unit_label: 'seats' });
    expect(first.status, first.text).toBe(201);
    const taken = await call('POST', '/v1/meters', { name: 'Seats', event_name: 'seat', aggregation: 'count', unit_label: 'seats' });
    expect([taken.status, taken.json.error.code, taken.json.error.param]).toEqual([409, 'meter_name_taken', 'name']);
    expect(taken.json.error.details?.archived_holder).toBeUndefined();
    await call('POST', `/v1/meters/${first.json.id}/archive`);
    const archived = await call('POST', '/v1/meters', { name: 'Seats', event_name: 'seat', aggregation: 'count', unit_label: 'seats' });
    expect(archived.json.error).toMatchObject({ code: 'meter_name_taken', details: { archived_holder: true, archived_holder_id: first.json.id } });
    // Another store has no such meter, and may take the name.
    expect((await other('GET', `/v1/meters/${first.json.id}`)).status).toBe(404);
    expect((await other('POST', '/v1/meters', { name: 'Seats', event_name: 'seat', aggregation: 'count', unit_label: 'seats' })).status).toBe(201);
  });

  it('rejects a batch whole with 422 naming the event and field, storing nothing', async () => {
    const bad = await call('POST', '/v1/events/ingest', {
      events: [
        { name: 'api.call', customer_id: customerId, event_id: 'ok-1' },
        { name: 'api.call', customer_id: 'cust_nobody', event_id: 'ok-2' },
      ],
    });
    expect([bad.status, bad.json.error.code, bad.json.error.param]).toEqual([422, 'unprocessable_input', 'events[1].customer_id']);
    const blank = await call('POST', '/v1/events/ingest', { events: [{ name: 'api.call', customer_id: customerId, event_id: '   ' }] });
    expect([blank.status, blank.json.error.param]).toEqual([422, 'events[0].event_id']);
    const both = await call('POST', '/v1/events/ingest', { events: [{ name: 'api.call', customer_id: customerId, external_customer_id: 'ext-usage-1' }] });
    expect(both.status).toBe(422);
    const tooMany = await call('POST', '/v1/events/ingest', { events: Array.from({ length: 101 }, () => ({ name: 'api.call', customer_id: customerId })) });
    expect([tooMany.status, tooMany.json.error.param]).toEqual([422, 'events']);
    expect((await call('GET', '/v1/events?reference=ok-1')).json.data).toEqual([]);
    // Another store's customer is as unknown as no customer at all.
    const foreign = await other('POST', '/v1/events/ingest', { events: [{ name: 'api.call', customer_id: customerId }] });
    expect([foreign.status, foreign.json.error.param]).toEqual([422, 'events[0].customer_id']);
  });

  it('fixes a meter’s definition once it has processed usage; a rename stays allowed', async () => {
    const m = (await call('POST', '/v1/meters', { name: 'Calls', event_name: 'calls', aggregation: 'count', unit_label: 'calls' })).json;
    const early = await call('PATCH', `/v1/meters/${m.id}`, { aggregation: 'unique', aggregation_property: 'user' });
    expect(early.status, early.text).toBe(200);
    expect((await call('POST', '/v1/events/ingest', { events: [{ name: 'calls', customer_id: customerId, properties: { user: 'a' } }] })).status).toBe(202);
    const locked = await call('PATCH', `/v1/meters/${m.id}`, { aggregation: 'count' });
    expect([locked.status, locked.json.error.code, locked.json.error.param]).toEqual([409, 'meter_definition_locked', 'aggregation']);
    expect((await call('PATCH', `/v1/meters/${m.id}`, { name: 'Distinct users' })).json.name).toBe('Distinct users');
    const missing = await call('POST', '/v1/meters', { name: 'Sum without property', event_name: 'calls', aggregation: 'sum', unit_label: 'x' });
    expect([missing.status, missing.json.error.param]).toEqual([400, 'aggregation_property']);
  });

  it('runs through GraphQL: meters with previews and consumed units, customer -> usage events, and the mutations with userErrors', async () => {
    const gql = async (query: string, variables: object = {}) => {
      const res = await call('POST', '/graphql', { query, variables });
      expect(res.json?.errors, res.text).toBeUndefined();
      return res.json.data;
    };
    const created = await gql('mutation { createMeter(input: { name: "GraphQL minutes", eventName: "gql.minutes", aggregation: max, aggregationProperty: "m", unitLabel: "min" }) { meter { id aggregation status } userErrors { field code } } }');
    const id = created.createMeter.meter.id;
    expect(created.createMeter).toMatchObject({ meter: { aggregation: 'max', status: 'active' }, userErrors: [] });
    const taken = await gql('mutation { createMeter(input: { name: "GraphQL minutes", eventName: "x", aggregation: count, unitLabel: "x" }) { meter { id } userErrors { field code } } }');
    expect(taken.createMeter).toEqual({ meter: null, userErrors: [{ field: 'name', code: 'meter_name_taken' }] });

    const ingested = await gql('mutation($c: ID!) { ingestUsageEvents(events: [{ name: "gql.minutes", customerId: $c, eventId: "gql-1", properties: { m: 7 } }, { name: "gql.minutes", customerId: $c, eventId: "gql-2", properties: { m: "12" } }]) { accepted eventIds warnings { code } userErrors { field code } } }', { c: customerId });
    expect(ingested.ingestUsageEvents).toEqual({ accepted: 2, eventIds: ['gql-1', 'gql-2'], warnings: [], userErrors: [] });
    const refused = await gql('mutation { ingestUsageEvents(events: [{ name: "gql.minutes", customerId: "cust_nobody" }]) { accepted userErrors { field code } } }');
    expect(refused.ingestUsageEvents).toEqual({ accepted: null, userErrors: [{ field: 'events[0].customerId', code: 'unprocessable_input' }] });

    const read = await gql(
      `query($id: ID!, $c: ID!) {
        node(id: $id) { ... on Meter { name consumedUnits(customerId: $c) { units } preview { matchedEvents units daily { eventCount } } usageEvents(first: 5) { edges { node { eventId } } } } }
        customer: node(id: $c) { ... on Customer { usageEvents(first: 50) { totalCount edges { node { eventId name } } } } }
        meterPreview(eventName: "gql.minutes", aggregation: sum, aggregationProperty: "m") { units }
        usageEventsPreview(events: [{ name: "gql.minutes", customerId: $c, eventId: "gql-1" }]) { valid events { duplicate matchedMeters } }
      }`,
      { id, c: customerId },
    );
    expect(read.node).toMatchObject({ name: 'GraphQL minutes', consumedUnits: { units: '12' }, preview: { matchedEvents: 2, units: '12' }, usageEvents: { edges: [{ node: { eventId: 'gql-1' } }, { node: { eventId: 'gql-2' } }] } });
    expect(read.customer.usageEvents.edges.map((e: { node: { eventId: string } }) => e.node.eventId)).toEqual(expect.arrayContaining(['gql-1', 'gql-2']));
    expect(read.meterPreview.units).toBe('19');
    expect(read.usageEventsPreview).toEqual({ valid: true, events: [{ duplicate: true, matchedMeters: [id] }] });

    const archived = await gql('mutation($id: ID!) { archiveMeter(input: { id: $id }) { meter { status } } }', { id });
    expect(archived.archiveMeter.meter.status).toBe('archived');
    expect((await gql('{ meters(first: 100) { edges { node { id } } } }')).meters.edges.map((e: { node: { id: string } }) => e.node.id)).not.toContain(id);
    expect((await gql('mutation($id: ID!) { unarchiveMeter(input: { id: $id }) { meter { status } } }', { id })).unarchiveMeter.meter.status).toBe('active');
  });
});
