import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCustomer } from '../support/factories.js';
import { storeAndFold } from '../../src/db/usage.js';
import { api, startTestService, type TestService } from '../support/service.js';

/**
 * The six aggregations and the filters, computed by the database: edge cases, dedup across
 * concurrent batches, the projection against a full replay, and the preview window.
 */
describe('meter aggregations', () => {
  let service: TestService;
  let call: ReturnType<typeof api>;
  let customer: string;
  let second: string;
  let storeId: string;
  let n = 0;
  beforeAll(async () => {
    service = await startTestService();
    const store = await service.createStore('Aggregations');
    storeId = store.id;
    call = api(service.testUrl, store.test_api_key);
    customer = (await makeCustomer(service.contextOf(store))).id;
    second = (await makeCustomer(service.contextOf(store))).id;
  });
  afterAll(() => service?.close());

  async function meter(aggregation: string, event: string, extra: Record<string, unknown> = {}) {
    const res = await call('POST', '/v1/meters', { name: `${aggregation} ${++n}`, event_name: event, aggregation, ...(aggregation === 'count' ? {} : { aggregation_property: 'v' }), unit_label: 'u', ...extra });
    expect(res.status, res.text).toBe(201);
    return res.json.id as string;
  }
  const ingest = async (events: Record<string, unknown>[]) => {
    const res = await call('POST', '/v1/events/ingest', { events });
    expect(res.status, res.text).toBe(202);
    return res.json;
  };
  const units = async (id: string, who = customer, at?: string) => (await call('GET', `/v1/meters/${id}/consumed?customer_id=${who}${at ? `&at=${encodeURIComponent(at)}` : ''}`)).json.units as string;

  it('answers 0 for every aggregation before any event', async () => {
    for (const aggregation of ['count', 'sum', 'average', 'min', 'max', 'unique']) {
      const id = await meter(aggregation, `empty.${aggregation}`);
      expect([aggregation, await units(id)]).toEqual([aggregation, '0']);
      expect([aggregation, await units(id, customer, new Date().toISOString())]).toEqual([aggregation, '0']);
      expect((await call('POST', `/v1/meters/${id}/preview`)).json).toMatchObject({ matched_events: 0, units: '0', distinct_customers: 0 });
    }
  });

  it('folds each aggregation exactly, skipping values that are not numbers, with equal timestamps', async () => {
    const at = new Date().toISOString();
    const ids = Object.fromEntries(await Promise.all(['count', 'sum', 'average', 'min', 'max', 'unique'].map(async (a) => [a, await meter(a, 'mix')] as const)));
    const sent = [{ v: 4 }, { v: '2.5' }, { v: -1 }, { v: 'many' }, { v: true }, {}, { v: 4 }];
    const res = await ingest(sent.map((properties) => ({ name: 'mix', customer_id: customer, timestamp: at, properties })));
    // Three events carry no number for v: each numeric meter says so in the extension.
    expect(res.value_warnings.filter((w: { meter_id: string }) => w.meter_id === ids.sum)).toHaveLength(3);
    const expected = { count: '7', sum: '9.5', average: '2.375', min: '-1', max: '4', unique: '5' };
    for (const [a, id] of Object.entries(ids)) {
      expect([a, await units(id)]).toEqual([a, expected[a as keyof typeof expected]]);
      expect([a, await units(id, customer, new Date().toISOString())]).toEqual([a, expected[a as keyof typeof expected]]);
    }
    const preview = (await call('POST', `/v1/meters/${ids.average}/preview`)).json;
    expect(preview).toMatchObject({ matched_events: 7, units: '2.375', skipped_non_numeric: 3 });
  });

  it('filters on properties with every operator, both sides auto-parsed', async () => {
    const rows = [{ plan: 'pro', n: '10', beta: 'true', tag: 'gpu-large' }, { plan: 'free', n: 3, beta: false, tag: 'cpu' }, { plan: 'pro', n: 7 }];
    await ingest(rows.map((properties) => ({ name: 'filtered', customer_id: customer, properties })));
    const count = async (clauses: unknown[], conjunction = 'and') => (await call('POST', '/v1/meters/preview', { event_name: 'filtered', aggregation: 'count', filter: { conjunction, clauses } })).json.matched_events;
    expect(await count([{ property: 'plan', operator: 'equals', value: 'pro' }])).toBe(2);
    expect(await count([{ property: 'plan', operator: 'not_equals', value: 'pro' }])).toBe(1);
    expect(await count([{ property: 'n', operator: 'equals', value: 10 }])).toBe(1);
    expect(await count([{ property: 'n', operator: 'gt', value: '5' }])).toBe(2);
    expect(await count([{ property: 'n', operator: 'lte', value: 7 }])).toBe(2);
    expect(await count([{ property: 'beta', operator: 'equals', value: true }])).toBe(1);
    expect(await count([{ property: 'beta', operator: 'not_equals', value: 'true' }])).toBe(2);
    expect(await count([{ property: 'tag', operator: 'contains', value: 'gpu' }])).toBe(1);
    expect(await count([{ property: 'tag', operator: 'not_contains', value: 'gpu' }])).toBe(2);
    expect(await count([{ property: 'plan', operator: 'equals', value: 'free' }, { property: 'n', operator: 'gte', value: 7 }], 'or')).toBe(3);
    expect(await count([{ property: 'plan', operator: 'equals', value: 'pro' }, { property: 'n', operator: 'gte', value: 8 }], 'and')).toBe(1);
    const refused = await call('POST', '/v1/meters/preview', { event_name: 'filtered', aggregation: 'count', filter: { clauses: [{ property: 'beta', operator: 'gt', value: true }] } });
    expect([refused.status, refused.json.error.param]).toEqual([422, 'filter.clauses[0].operator']);
  });

  it('counts an event once: duplicates in a batch, and the same ids in concurrent batches; the projection equals a full replay', async () => {
    const sum = await meter('sum', 'concurrent');
    const unique = await meter('unique', 'concurrent');
    const average = await meter('average', 'concurrent');
    // 10 batches of 40, drawn from 100 ids (with repeats inside batches too), sent at once.
    const value = (i: number) => (i % 7) + 0.5;
    const batches = Array.from({ length: 10 }, (_, b) =>
      Array.from({ length: 40 }, (_, j) => {
        const i = (b * 13 + j * 7) % 100;
        return { name: 'concurrent', customer_id: i % 3 ? customer : second, event_id: `same-${i}`, properties: { v: value(i) } };
      }),
    );
    const answers = await Promise.all(batches.map((events) => call('POST', '/v1/events/ingest', { events })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    const distinct = new Map(batches.flat().map((e) => [e.event_id, e]));
    const mine = [...distinct.values()].filter((e) => e.customer_id === customer);
    const total = mine.reduce((s, e) => s + e.properties.v, 0);
    expect(await units(sum)).toBe(String(total));
    expect(await units(unique)).toBe(String(new Set(mine.map((e) => e.properties.v)).size));
    for (const id of [sum, unique, average]) {
      for (const who of [customer, second]) expect(await units(id, who)).toBe(await units(id, who, new Date().toISOString()));
    }
    const listed = await call('GET', `/v1/events?meter_id=${sum}&limit=100`);
    expect(listed.json.data).toHaveLength(100);
  });

  it('previews the last 7 whole UTC days, today included, oldest first and zero-filled, future events excluded, across midnight', async () => {
    const id = await meter('count', 'midnight');
    const now = new Date((await call('GET', '/v1/test-clock')).json.now);
    const nextMidnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const advance = Math.floor((nextMidnight - now.getTime()) / 1000) - 5;
    expect((await call('POST', '/v1/test-clock/advance', { seconds: advance })).status).toBe(200);
    const today = new Date(nextMidnight - 86_400_000).toISOString().slice(0, 10);
    const beforeMidnight = new Date(nextMidnight - 10_000).toISOString();
    const afterMidnight = new Date(nextMidnight + 1_000).toISOString();
    const sixDaysAgo = new Date(nextMidnight - 7 * 86_400_000).toISOString();
    const sevenDaysAgo = new Date(nextMidnight - 7 * 86_400_000 - 1).toISOString();
    await ingest([beforeMidnight, afterMidnight, sixDaysAgo, sevenDaysAgo].map((timestamp) => ({ name: 'midnight', customer_id: customer, timestamp })));
    const before = (await call('POST', `/v1/meters/${id}/preview`)).json;
    expect(before.daily.map((d: { date: string }) => d.date).at(-1)).toBe(today);
    expect(before.daily.map((d: { event_count: number }) => d.event_count)).toEqual([1, 0, 0, 0, 0, 0, 1]);
    expect(before.matched_events).toBe(2);
    // Past midnight the window moves a day: the oldest day drops out, the event of 00:00:01 is no longer future.
    expect((await call('POST', '/v1/test-clock/advance', { seconds: 10 })).status).toBe(200);
    const after = (await call('POST', `/v1/meters/${id}/preview`)).json;
    expect(after.daily.map((d: { event_count: number }) => d.event_count)).toEqual([0, 0, 0, 0, 0, 1, 1]);
    expect(after.daily.at(-1).date).toBe(new Date(nextMidnight).toISOString().slice(0, 10));
  });

  /** The candidate preview of a stored meter's definition: a raw scan of the events, never the rollup. */
  const rawPreview = async (id: string) => {
    const m = (await call('GET', `/v1/meters/${id}`)).json;
    return (await call('POST', '/v1/meters/preview', { event_name: m.event_name, aggregation: m.aggregation, ...(m.aggregation_property ? { aggregation_property: m.aggregation_property } : {}), filter: m.filter })).json;
  };
  const rollupTotal = async (meterId: string) => Number((await service.db.prisma.meterDailyUsage.aggregate({ where: { meterId }, _sum: { eventCount: true } }))._sum.eventCount ?? 0);

  it('previews a stored meter from its daily rollup: events from before it existed and while archived, every aggregation as the raw scan says, a later-today event only once its time comes', async () => {
    const now = new Date((await call('GET', '/v1/test-clock')).json.now);
    const day = (back: number, hour: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - back, hour)).toISOString();
    const sent = [
      { at: day(6, 1), v: 3, c: customer },
      { at: day(3, 12), v: '2.5', c: second },
      { at: day(3, 13), v: 'n/a', c: customer },
      { at: day(1, 23), v: 3, c: second },
      { at: day(8, 9), v: 100, c: customer },
    ];
    await ingest(sent.map((e, i) => ({ name: 'rolled', customer_id: e.c, timestamp: e.at, event_id: `rolled-${i}`, properties: { v: e.v, tier: i % 2 ? 'pro' : 'free' } })));
    const ids = await Promise.all(['count', 'sum', 'average', 'min', 'max', 'unique'].map((a) => meter(a, 'rolled')));
    const filtered = await meter('sum', 'rolled', { filter: { conjunction: 'and', clauses: [{ property: 'tier', operator: 'equals', value: 'pro' }] } });
    ids.push(filtered);
    await call('POST', `/v1/meters/${ids[1]}/archive`);
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    const laterToday = new Date(now.getTime() + Math.floor((midnight - now.getTime()) / 2));
    await ingest([
      { name: 'rolled', customer_id: customer, event_id: 'rolled-now', timestamp: now.toISOString(), properties: { v: -4, tier: 'pro' } },
      { name: 'rolled', customer_id: second, event_id: 'rolled-later-today', timestamp: laterToday.toISOString(), properties: { v: 50, tier: 'pro' } },
    ]);
    for (const id of ids) {
      const stored = (await call('POST', `/v1/meters/${id}/preview`)).json;
      expect([id, stored]).toEqual([id, await rawPreview(id)]);
      expect(stored.daily.at(-1).event_count).toBe(id === filtered ? 1 : 1);
    }
    expect((await call('POST', `/v1/meters/${ids[0]}/preview`)).json).toMatchObject({ matched_events: 5, units: '5', distinct_customers: 2 });
    expect((await call('POST', `/v1/meters/${ids[1]}/preview`)).json).toMatchObject({ matched_events: 5, units: '4.5', skipped_non_numeric: 1 });
    // The rollup holds the window's days and what came after: the later-today event too, which the preview leaves out until its time.
    expect(await rollupTotal(ids[0]!)).toBe(6);
    expect((await service.db.prisma.meter.findUniqueOrThrow({ where: { id: ids[0] } })).dailyRollupFrom).toEqual(new Date(day(6, 0)));
    expect((await call('POST', '/v1/test-clock/advance', { to: new Date(laterToday.getTime() + 1).toISOString() })).status).toBe(200);
    for (const id of ids) expect([id, (await call('POST', `/v1/meters/${id}/preview`)).json]).toEqual([id, await rawPreview(id)]);
    expect((await call('POST', `/v1/meters/${ids[0]}/preview`)).json).toMatchObject({ matched_events: 6, units: '6' });
  });

  it('keeps the rollup and the projection whole when a meter is created while batches are being ingested', async () => {
    const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 25 }, (_, j) => ({ name: 'racing', customer_id: j % 2 ? customer : second, event_id: `race-${b}-${j}`, properties: { v: j } })));
    const [created, ...answers] = await Promise.all([
      (async () => {
        await new Promise((r) => setTimeout(r, 5));
        return meter('sum', 'racing');
      })(),
      ...batches.map((events) => call('POST', '/v1/events/ingest', { events })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(202));
    expect(await rollupTotal(created)).toBe(300);
    expect((await call('POST', `/v1/meters/${created}/preview`)).json).toEqual(await rawPreview(created));
    for (const who of [customer, second]) expect(await units(created, who)).toBe(await units(created, who, new Date((await call('GET', '/v1/test-clock')).json.now).toISOString()));
  });

  it('answers every request when a meter is redefined, archived and unarchived while batches are being ingested, and the numbers still equal a replay', async () => {
    const id = await meter('sum', 'churning');
    const batches = Array.from({ length: 10 }, (_, b) => Array.from({ length: 20 }, (_, j) => ({ name: 'churning', customer_id: j % 2 ? customer : second, event_id: `churn-${b}-${j}`, properties: { v: j, tier: j % 3 ? 'pro' : 'free' } })));
    const changes = [
      () => call('PATCH', `/v1/meters/${id}`, { filter: { conjunction: 'and', clauses: [{ property: 'tier', operator: 'equals', value: 'pro' }] } }),
      () => call('POST', `/v1/meters/${id}/archive`),
      () => call('POST', `/v1/meters/${id}/unarchive`),
    ];
    const answers = await Promise.all([...batches.map((events) => call('POST', '/v1/events/ingest', { events })), ...changes.map(async (change, i) => {
      await new Promise((r) => setTimeout(r, 3 * i));
      return change();
    })]);
    // A redefinition after the first fold is refused (409); nothing fails.
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual(Array(10).fill(202));
    expect(answers.slice(10).map((a) => a.status).every((s) => s === 200 || s === 409)).toBe(true);
    if ((await call('GET', `/v1/meters/${id}`)).json.status === 'archived') expect((await call('POST', `/v1/meters/${id}/unarchive`)).status).toBe(200);
    const now = new Date((await call('GET', '/v1/test-clock')).json.now).toISOString();
    for (const who of [customer, second]) expect(await units(id, who)).toBe(await units(id, who, now));
    expect((await call('POST', `/v1/meters/${id}/preview`)).json).toEqual(await rawPreview(id));
  });

  it('writes nothing from a plan made against meters that have changed since, so the batch is planned again', async () => {
    const id = await meter('count', 'stale');
    const ctx = service.contextOf({ id: storeId });
    const event = { id: 'uev_stale_1', key: 'stale-1', eventName: 'stale', customerId: customer, properties: {}, timestamp: new Date() };
    const meters = new Map([[id, { eventName: 'stale', aggregation: 'count' as const, property: null, filter: { conjunction: 'and' as const, clauses: [] } }]]);
    // The plan saw no meter of the name; one exists now.
    const stale = await storeAndFold(ctx, new Date(), { events: [event], targets: [], rollups: [], meters, versions: [], eventNames: ['stale'] });
    expect(stale).toEqual({ fresh: false, inserted: 0 });
    expect((await call('GET', '/v1/events?reference=stale-1')).json.data).toHaveLength(0);
    // Through the API the same event is planned with the meter and counted.
    await ingest([{ name: 'stale', customer_id: customer, event_id: 'stale-1' }]);
    expect(await units(id)).toBe('1');
  });
});
