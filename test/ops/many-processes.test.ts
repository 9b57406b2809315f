import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/events.service.js';
import { createStore, type CreatedStore } from '../../src/modules/stores/stores.service.js';
import { BUYER, CheckoutBrowser, type PageResult } from '../support/checkout-page.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';
import { expectLedgerConsistent } from '../support/ledger-check.js';
import { startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { insertEndpoint, waitUntil } from '../webhooks/delivery-support.js';

/**
 * Many processes on one PostgreSQL: three server processes (JOB_RUNNER=off) and two job workers,
 * all real child processes of the compiled bundle on one database, take the purchase, renewal,
 * ledger and ingestion scenarios at the same time, each scenario spreading its requests over
 * the three servers round robin, and the workers deliver every webhook.
 *
 * "Same as one process" is what the assertions say: every number checked below is the one a
 * single process serving the same requests one after another would give. One paid order, one
 * paid transaction, one license and one checkout.completed event per purchase however many
 * servers a checkout's submits reached; one renewal (one more paid transaction, one more
 * subscription.paid) per subscription however many runners raced for it; a ledger balance that
 * is the initial balance plus the accepted credits minus the accepted debits, never negative;
 * the meter counting each unique event id once; each event delivered once, none missing.
 */
const onPostgres = Boolean(process.env.DATABASE_URL);

const PURCHASES = 30;
const DOUBLE_SUBMIT_EVERY = 3; // every third purchase submits its form twice at once, to two servers
const SUBSCRIPTIONS = 10;
const INITIAL_BALANCE = 100n;
const DEBITS = 60; // of 3: 180, more than the 100 + 30 the account ever holds
const DEBIT = 3n;
const CREDITS = 15; // of 2
const CREDIT = 2n;
const RETRIED_DEBITS = 10; // sent twice at once with one idempotency key, to two servers
const UNIQUE_USAGE_EVENTS = 200;
const REPEATED_USAGE_EVENTS = 80; // ids ending in 0 or 2 (mod 5), sent again in another batch, to another server
const BATCH = 20;
/** How long the seller's webhook receiver takes to answer, as real ones do: a worker's round takes a while. */
const RECEIVER_DELAY_MS = 25;
// Requests in flight per scenario. Each process's pool may open 20 connections and PostgreSQL
// allows 100 by default, shared with the other test files running beside this one: enough
// concurrency to race, not so much that five pools together exhaust the server.
const PURCHASE_LANES = 8;
const LEDGER_LANES = 12;
const INGEST_LANES = 8;

type Json = any;

describe.skipIf(!onPostgres)('many processes on one PostgreSQL (PostgreSQL only: the embedded database belongs to one process)', () => {
  let db: TestDatabase | undefined;
  let receiver: SlowReceiver | undefined;
  const servers: ServiceProcess[] = [];
  const workers: ServiceProcess[] = [];
  let sampling = false;
  const stores = {} as Record<'purchases' | 'renewals' | 'ledger' | 'ingestion', CreatedStore>;

  beforeAll(async () => {
    db = await openTestDatabase();
    receiver = await SlowReceiver.start(RECEIVER_DELAY_MS);
    for (const name of ['purchases', 'renewals', 'ledger', 'ingestion'] as const) {
      stores[name] = await createStore(db.prisma, { name: `Many processes: ${name}` });
      // Subscribed to every event type: whatever the scenarios produce must reach it once.
      await insertEndpoint(db.prisma, { storeId: stores[name].id, mode: 'test', url: receiver.url, events: [...EVENT_TYPES] });
    }
    const env = { DATABASE_URL: db.url! };
    const started = await Promise.allSettled([
      ...[0, 1, 2].map(() => startServiceProcess('server', { ...env, JOB_RUNNER: 'off', LOG_LEVEL: 'warn' })),
      ...[0, 1].map(() => startServiceProcess('worker', env)),
    ]);
    for (const [i, s] of started.entries()) if (s.status === 'fulfilled') (i < 3 ? servers : workers).push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }, 60_000);

  afterAll(async () => {
    sampling = false;
    // Whatever a failed step left running (the test itself stops them with SIGTERM and checks the exits).
    await Promise.all([...servers, ...workers].map((p) => p.stop('SIGKILL')));
    await receiver?.close();
    await db?.close();
  });

  it('gives the results of one process: no double charge, no lost or doubled event, exact balances and meters', async () => {
    const prisma = db!.prisma;
    const started = Date.now();
    /** The n-th request of a scenario goes to server n mod 3. */
    const at = (n: number) => servers[((n % 3) + 3) % 3]!.testUrl;
    const call = (key: string) => async (n: number, method: string, path: string, body?: unknown) => {
      const res = await fetch(at(n) + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json: Json;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, json, text, server: n % 3 };
    };

    // Peak connections of the five processes (and this test) to the database, for the report.
    const dbName = new URL(db!.url!).pathname.slice(1);
    let peakConnections = 0;
    sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1`, dbName).catch(() => []);
        peakConnections = Math.max(peakConnections, Number(rows[0]?.n ?? 0));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    /**
     * One buyer's purchase through the hosted page, each step on another server: the checkout is
     * created on server n, the page read on n+1, the total quoted and the form submitted on n+2;
     * `twice`: the same form is also submitted on server n at the same moment (a double click
     * reaching two servers).
     */
    const purchase = async (api: ReturnType<typeof call>, n: number, productId: string, email: string, twice: boolean) => {
      const created = await api(n, 'POST', '/v1/checkouts', { product_id: productId });
      expect(created.status, created.text).toBe(200);
      const id = created.json.id as string;
      const browser = new CheckoutBrowser(at(n + 1));
      const page = await browser.get(`${at(n + 1)}/checkout/${id}`);
      expect(page.status, page.html.slice(0, 500)).toBe(200);
      const quote = (await (await fetch(`${at(n + 2)}/checkout/${id}/quote?${new URLSearchParams({ country: BUYER.country, tax_id: '', amount: '' })}`)).json()) as { amount_due: string };
      const fields = { ...BUYER, email, expected_total: quote.amount_due };
      const submits: Promise<PageResult>[] = [browser.submit(`${at(n + 2)}/checkout/${id}`, page.html, fields)];
      if (twice) submits.push(browser.submit(`${at(n)}/checkout/${id}`, page.html, fields));
      const answers = await Promise.all(submits);
      for (const a of answers) expect(a.status, `checkout ${id}: ${a.html.slice(0, 500)}`).toBe(303);
      // Both submits land on the success page of the one order.
      const orders = answers.map((a) => new URL(a.location!).searchParams.get('order_id'));
      expect(orders[0]).toMatch(/^ord_/);
      expect(new Set(orders).size).toBe(1);
      return { checkoutId: id, orderId: orders[0]!, subscriptionId: new URL(answers[0]!.location!).searchParams.get('subscription_id') };
    };

    /** Runs `fn` over `items`, `width` at a time. */
    const lanes = async <T, R>(items: T[], width: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> => {
      const out: R[] = new Array(items.length);
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(width, items.length) }, async () => {
          while (next < items.length) {
            const i = next++;
            out[i] = await fn(items[i]!, i);
          }
        }),
      );
      return out;
    };

    // 1. Purchases: a one-time product with a license key, bought 30 times at once.
    const purchases = async () => {
      const api = call(stores.purchases.test_api_key);
      const product = await api(0, 'POST', '/v1/products', {
        name: 'Desktop app',
        price: 4900,
        currency: 'EUR',
        billing_type: 'onetime',
        features: [{ type: 'licenseKey', description: 'License key', license_key: { activation_limit: 3 } }],
      });
      expect(product.status, product.text).toBe(200);
      const bought = await lanes(
        Array.from({ length: PURCHASES }, (_, i) => i),
        PURCHASE_LANES,
        (i) => purchase(api, i, product.json.id, `buyer-${i}@example.com`, i % DOUBLE_SUBMIT_EVERY === 0),
      );
      return { productId: product.json.id as string, bought };
    };

    // 2. Renewals: ten monthly subscriptions bought the same way, then the store's clock moved
    // past their period through one server while both workers run their rounds.
    const renewals = async () => {
      const api = call(stores.renewals.test_api_key);
      const product = await api(1, 'POST', '/v1/products', { name: 'Monthly plan', price: 1500, currency: 'EUR', billing_type: 'recurring', billing_period: 'every-month' });
      expect(product.status, product.text).toBe(200);
      const bought = await lanes(
        Array.from({ length: SUBSCRIPTIONS }, (_, i) => i),
        PURCHASE_LANES,
        (i) => purchase(api, i + 1, product.json.id, `subscriber-${i}@example.com`, i % DOUBLE_SUBMIT_EVERY === 0),
      );
      const subscriptionIds = bought.map((b) => b.subscriptionId!);
      expect(subscriptionIds.every((id) => /^sub_/.test(id))).toBe(true);
      const subs = await prisma.subscription.findMany({ where: { id: { in: subscriptionIds } } });
      const periodEnds = new Map(subs.map((s) => [s.id, s.currentPeriodEndDate!]));
      // Just past the latest period end: one renewal each, the next one a month away.
      const to = new Date(Math.max(...subs.map((s) => s.currentPeriodEndDate!.getTime())) + 3_600_000);
      const advanced = await api(0, 'POST', '/v1/test-clock/advance', { to: to.toISOString() });
      expect(advanced.status, advanced.text).toBe(200);
      await waitUntil(
        async () => (await prisma.transaction.count({ where: { subscriptionId: { in: subscriptionIds }, status: 'paid' } })) >= 2 * SUBSCRIPTIONS,
        { timeoutMs: 30_000, what: 'the renewals were not all paid' },
      );
      return { productId: product.json.id as string, subscriptionIds, periodEnds, ranByAdvance: advanced.json.ran as Record<string, number> };
    };

    // 3. Ledger: debits and credits of one account at once over the three servers, more debits
    // than the balance can pay; some debits sent twice at once with one key.
    const ledger = async () => {
      const api = call(stores.ledger.test_api_key);
      const customer = await api(2, 'POST', '/v1/customers', { email: 'ledger@example.com' });
      expect(customer.status, customer.text).toBe(200);
      const account = await api(0, 'POST', '/v1/customer-credits/accounts', { customer_id: customer.json.id, name: 'Tokens', unit_label: 'tokens', initial_balance: String(INITIAL_BALANCE) });
      expect(account.status, account.text).toBe(201);
      const accountId = account.json.id as string;
      type Op = { side: 'debit' | 'credit'; key: string; amount: bigint; copy: number };
      const ops: Op[] = [];
      for (let i = 0; i < DEBITS; i++) ops.push({ side: 'debit', key: `debit-${i}`, amount: DEBIT, copy: 0 });
      for (let i = 0; i < RETRIED_DEBITS; i++) ops.push({ side: 'debit', key: `debit-${i}`, amount: DEBIT, copy: 1 });
      for (let i = 0; i < CREDITS; i++) ops.push({ side: 'credit', key: `credit-${i}`, amount: CREDIT, copy: 0 });
      // Interleaved (a fixed shuffle), so credits land among the debits; a retried debit's second
      // copy goes out right after its first, to the next server.
      const rankOf = (i: number) => (i * 37) % ops.length; // a permutation: 37 and the count are coprime
      const firstRank = new Map(ops.map((op, i) => [op.key, rankOf(i)] as const).filter(([, r], i) => ops[i]!.copy === 0));
      const order = ops
        .map((op, i) => ({ op, rank: op.copy ? firstRank.get(op.key)! + 0.5 : rankOf(i) }))
        .sort((a, b) => a.rank - b.rank)
        .map(({ op }, i) => ({ op, server: i }));
      const answers = await lanes(order, LEDGER_LANES, ({ op, server }) =>
        api(server, 'POST', `/v1/customer-credits/accounts/${accountId}/${op.side}`, { amount: String(op.amount), reference: `many-processes-${op.side}`, idempotency_key: op.key }).then((r) => ({ op, ...r })),
      );
      return { accountId, answers };
    };

    // 4. Ingestion: 200 unique usage events, 80 of them sent again in another batch, batches
    // of 20 sent at once over the three servers; one whole batch replayed at the same time.
    const ingestion = async () => {
      const api = call(stores.ingestion.test_api_key);
      const customer = await api(0, 'POST', '/v1/customers', { email: 'usage@example.com' });
      expect(customer.status, customer.text).toBe(200);
      const meter = await api(1, 'POST', '/v1/meters', { name: 'Tokens', event_name: 'llm.tokens', aggregation: 'sum', aggregation_property: 'tokens', unit_label: 'tokens' });
      expect(meter.status, meter.text).toBe(201);
      const timestamp = new Date().toISOString();
      // A repeated event carries the same properties: which copy is stored first does not matter.
      const event = (i: number) => ({ name: 'llm.tokens', customer_id: customer.json.id, event_id: `evt-${i}`, timestamp, properties: { tokens: (i % 7) + 1 } });
      // Ten batches of the unique events, batch b on server b; the repeated ones (every id ending
      // in 0 or 2 modulo 5) go again in batches of their own, each to the server after the one
      // their first copy went to; and unique batch 0 is replayed whole on another server, as a
      // client retrying after a timeout. Repeats and first copies are interleaved and run at once.
      const unique: { ids: number[]; server: number }[] = [];
      for (let b = 0; b * BATCH < UNIQUE_USAGE_EVENTS; b++) unique.push({ ids: Array.from({ length: BATCH }, (_, k) => b * BATCH + k), server: b });
      const repeats: { ids: number[]; server: number }[] = [];
      for (let s = 0; s < 3; s++) {
        const ids = unique.filter((b) => b.server % 3 === s).flatMap((b) => b.ids.filter((id) => id % 5 === 0 || id % 5 === 2));
        for (let k = 0; k < ids.length; k += BATCH) repeats.push({ ids: ids.slice(k, k + BATCH), server: s + 1 });
      }
      expect(repeats.flatMap((b) => b.ids)).toHaveLength(REPEATED_USAGE_EVENTS);
      const batches = [...unique.flatMap((b, i) => (repeats[i] ? [b, repeats[i]!] : [b])), ...repeats.slice(unique.length), { ids: unique[0]!.ids, server: 1 }];
      const answers = await lanes(batches, INGEST_LANES, (b) => api(b.server, 'POST', '/v1/events/ingest', { events: b.ids.map(event) }).then((r) => ({ batch: b.ids, ...r })));
      const expectedUnits = Array.from({ length: UNIQUE_USAGE_EVENTS }, (_, i) => (i % 7) + 1).reduce((a, b) => a + b, 0);
      return { customerId: customer.json.id as string, meterId: meter.json.id as string, answers, expectedUnits, batches: batches.length };
    };

    const [p, r, l, u] = await Promise.all([purchases(), renewals(), ledger(), ingestion()]);
    const scenariosMs = Date.now() - started;

    // 1. Purchases: what one process gives for 30 purchases, double submits included.
    {
      const checkoutIds = p.bought.map((b) => b.checkoutId);
      const checkouts = await prisma.checkout.findMany({ where: { id: { in: checkoutIds } } });
      expect(checkouts.map((c) => c.status)).toEqual(Array(PURCHASES).fill('completed'));
      expect(checkouts.map((c) => c.paymentAttempts), 'a checkout paid more than once').toEqual(Array(PURCHASES).fill(1));
      expect(new Map(checkouts.map((c) => [c.id, c.orderId]))).toEqual(new Map(p.bought.map((b) => [b.checkoutId, b.orderId])));
      const orders = await prisma.order.findMany({ where: { productId: p.productId } });
      expect(orders).toHaveLength(PURCHASES);
      expect(orders.every((o) => o.status === 'paid' && o.amountPaid === o.amountDue)).toBe(true);
      const transactions = await prisma.transaction.findMany({ where: { storeId: stores.purchases.id } });
      expect(transactions, 'transactions of the purchases store').toHaveLength(PURCHASES);
      const paidPerCheckout = countBy(transactions.filter((t) => t.status === 'paid').map((t) => t.checkoutId!));
      expect(checkoutIds.map((id) => paidPerCheckout.get(id) ?? 0), 'paid transactions per checkout').toEqual(Array(PURCHASES).fill(1));
      const licenses = await prisma.license.findMany({ where: { productId: p.productId } });
      const licensesPerOrder = countBy(licenses.map((l) => l.orderId!));
      expect(p.bought.map((b) => licensesPerOrder.get(b.orderId) ?? 0), 'licenses per order').toEqual(Array(PURCHASES).fill(1));
      const completed = await prisma.event.findMany({ where: { storeId: stores.purchases.id, type: 'checkout.completed' } });
      const completedPerCheckout = countBy(completed.map((e) => (e.payload as Json).id as string));
      expect(checkoutIds.map((id) => completedPerCheckout.get(id) ?? 0), 'checkout.completed events per checkout').toEqual(Array(PURCHASES).fill(1));
      expect(completed).toHaveLength(PURCHASES);
    }

    // 2. Renewals: each subscription paid twice (purchase and one renewal), announced once each.
    {
      const transactions = await prisma.transaction.findMany({ where: { storeId: stores.renewals.id } });
      expect(transactions.filter((t) => t.status !== 'paid'), 'renewal tries not paid (pending or declined)').toEqual([]);
      const perSubscription = countBy(transactions.map((t) => t.subscriptionId!));
      expect(r.subscriptionIds.map((id) => perSubscription.get(id) ?? 0), 'paid transactions per subscription').toEqual(Array(SUBSCRIPTIONS).fill(2));
      expect(transactions).toHaveLength(2 * SUBSCRIPTIONS);
      const renewalsOnly = transactions.filter((t) => t.checkoutId === null);
      expect(renewalsOnly).toHaveLength(SUBSCRIPTIONS);
      for (const t of renewalsOnly) {
        expect(t).toMatchObject({ attempt: 1, amountPaid: t.amount });
        expect(t.periodStart).toEqual(r.periodEnds.get(t.subscriptionId!));
      }
      expect(new Set(renewalsOnly.map((t) => t.processorReference)).size).toBe(SUBSCRIPTIONS);
      const subs = await prisma.subscription.findMany({ where: { id: { in: r.subscriptionIds } } });
      for (const s of subs) {
        expect(s).toMatchObject({ status: 'active', billingPeriods: 2 });
        expect(s.currentPeriodStartDate).toEqual(r.periodEnds.get(s.id));
      }
      const events = await prisma.event.findMany({ where: { storeId: stores.renewals.id, type: { startsWith: 'subscription.' } } });
      const paidEvents = countBy(events.filter((e) => e.type === 'subscription.paid').map((e) => (e.payload as Json).id as string));
      // One subscription.paid from the purchase, one from the renewal.
      expect(r.subscriptionIds.map((id) => paidEvents.get(id) ?? 0), 'subscription.paid events per subscription').toEqual(Array(SUBSCRIPTIONS).fill(2));
      const otherTypes = countBy(events.filter((e) => e.type !== 'subscription.paid').map((e) => e.type));
      expect(Object.fromEntries(otherTypes)).toEqual({ 'subscription.active': SUBSCRIPTIONS });
      // Exactly one pending renewal job each: the next period's.
      const jobs = await prisma.job.findMany({ where: { storeId: stores.renewals.id, kind: 'subscription.renew', status: 'pending' } });
      expect(countBy(jobs.map((j) => j.subjectId)), 'pending renewal jobs per subscription').toEqual(new Map(r.subscriptionIds.map((id) => [id, 1])));
    }

    // 3. Ledger: the balance one process would leave for the requests it accepted.
    let acceptedDebits = 0;
    {
      const byKey = new Map<string, typeof l.answers>();
      for (const a of l.answers) byKey.set(a.op.key, [...(byKey.get(a.op.key) ?? []), a]);
      const unexpected = l.answers.filter((a) => !(a.status === 201 || (a.op.side === 'debit' && a.status === 409 && a.json?.error?.code === 'insufficient_balance')));
      expect(unexpected.map((a) => `${a.op.side} ${a.op.key} on server ${a.server}: ${a.status} ${a.text}`), 'answers other than 201 or 409 insufficient_balance').toEqual([]);
      let acceptedCredits = 0;
      for (const [key, answers] of byKey) {
        const ok = answers.filter((a) => a.status === 201);
        // Copies of one key that were accepted are the one posting.
        expect(new Set(ok.map((a) => a.json.id)).size, `postings of key ${key}`).toBeLessThanOrEqual(1);
        if (ok.length) key.startsWith('debit') ? acceptedDebits++ : acceptedCredits++;
      }
      const refusedDebits = DEBITS - acceptedDebits;
      expect(acceptedCredits).toBe(CREDITS);
      expect(refusedDebits, 'debits refused (180 asked of at most 130)').toBeGreaterThan(0);
      // A debit is refused only below 3, which takes at least 33 accepted debits; at most 130 / 3 fit.
      expect(acceptedDebits).toBeGreaterThanOrEqual(Number((INITIAL_BALANCE - DEBIT) / DEBIT) + 1);
      expect(acceptedDebits).toBeLessThanOrEqual(Number((INITIAL_BALANCE + BigInt(CREDITS) * CREDIT) / DEBIT));
      const expected = INITIAL_BALANCE + BigInt(acceptedCredits) * CREDIT - BigInt(acceptedDebits) * DEBIT;
      expect(expected >= 0n).toBe(true);
      const balance = await call(stores.ledger.test_api_key)(1, 'GET', `/v1/customer-credits/accounts/${l.accountId}/balance`);
      expect(balance.json.balance).toBe(String(expected));
      const account = await prisma.creditAccount.findUniqueOrThrow({ where: { id: l.accountId } });
      expect(account.balance).toBe(expected);
      const entries = await prisma.ledgerEntry.findMany({ where: { accountId: l.accountId }, orderBy: { id: 'asc' } });
      expect(entries).toHaveLength(1 + acceptedCredits + acceptedDebits);
      expect(entries.filter((e) => e.side === 'debit').length).toBe(acceptedDebits);
      const keys = await prisma.ledgerTransaction.findMany({ where: { storeId: stores.ledger.id, idempotencyKey: { startsWith: 'debit-' } } });
      expect(keys).toHaveLength(acceptedDebits);
      // One credits event per posting (granted or consumed), and an exhausted event for each
      // debit that left the account at zero.
      const events = await prisma.event.findMany({ where: { storeId: stores.ledger.id } });
      const postings = new Set(entries.map((e) => e.transactionId));
      const moved = countBy(events.filter((e) => e.type === 'credits.granted' || e.type === 'credits.consumed').map((e) => (e.payload as Json).id as string));
      expect(new Map([...postings].map((id) => [id, moved.get(id) ?? 0]))).toEqual(new Map([...postings].map((id) => [id, 1])));
      expect([...moved.keys()].every((id) => postings.has(id))).toBe(true);
      expect(events.filter((e) => e.type === 'credits.consumed')).toHaveLength(acceptedDebits);
      expect(events.filter((e) => e.type === 'customer_credits.exhausted')).toHaveLength(entries.filter((e) => e.side === 'debit' && e.balanceAfter === 0n).length);
      await expectLedgerConsistent(db!);
    }

    // 4. Ingestion: the meter counts each unique event once.
    {
      for (const a of u.answers) {
        expect(a.status, a.text).toBe(202);
        expect(a.json.accepted).toBe(a.batch.length);
        expect(a.json.event_ids).toEqual(a.batch.map((i) => `evt-${i}`));
      }
      const stored = await prisma.usageEvent.findMany({ where: { storeId: stores.ingestion.id }, select: { idempotencyKey: true, properties: true } });
      expect(stored).toHaveLength(UNIQUE_USAGE_EVENTS);
      expect(new Set(stored.map((e) => e.idempotencyKey)).size).toBe(UNIQUE_USAGE_EVENTS);
      const consumed = await call(stores.ingestion.test_api_key)(2, 'GET', `/v1/meters/${u.meterId}/consumed?customer_id=${u.customerId}`);
      expect(consumed.status, consumed.text).toBe(200);
      expect(consumed.json.units).toBe(String(u.expectedUnits));
      const projection = await prisma.meterUsage.findMany({ where: { meterId: u.meterId } });
      expect(projection.reduce((s, row) => s + row.eventCount, 0n)).toBe(BigInt(UNIQUE_USAGE_EVENTS));
      expect(projection.reduce((s, row) => s + Number(row.sum), 0)).toBe(u.expectedUnits);
      const daily = await prisma.meterDailyUsage.findMany({ where: { meterId: u.meterId } });
      expect(daily.reduce((s, row) => s + row.eventCount, 0n)).toBe(BigInt(UNIQUE_USAGE_EVENTS));
    }

    // 5. Webhooks: once the workers are done, every event of the four stores delivered once.
    const storeIds = Object.values(stores).map((s) => s.id);
    await waitUntil(async () => (await prisma.webhookDelivery.count({ where: { storeId: { in: storeIds }, status: { not: 'succeeded' } } })) === 0, {
      timeoutMs: 30_000,
      what: () => `webhook deliveries still pending; the receiver got ${receiver!.received.length}`,
    });
    // One more round of both workers: a delivery sent twice would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const events = await prisma.event.findMany({ where: { storeId: { in: storeIds } }, select: { id: true, type: true } });
    const deliveries = await prisma.webhookDelivery.findMany({ where: { storeId: { in: storeIds } }, select: { eventId: true, status: true, attemptCount: true } });
    const got = countBy(receiver!.received.map((x) => JSON.parse(x.body).id as string));
    const missing = events.filter((e) => !got.has(e.id)).map((e) => `${e.id} ${e.type}`);
    const storeNames = new Map(Object.entries(stores).map(([name, s]) => [s.id, name]));
    const twice = await Promise.all(
      [...got]
        .filter(([, n]) => n > 1)
        .map(async ([id, n]) => {
          const event = await prisma.event.findUniqueOrThrow({ where: { id } });
          const delivery = await prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: id }, include: { attempts: { orderBy: { attemptedAt: 'asc' } } } });
          const arrivals = receiver!.received.filter((x) => JSON.parse(x.body).id === id).map((x) => x.at - started);
          return (
            `${id} x${n}: ${event.type} of the ${storeNames.get(event.storeId)} store, created ${event.createdAt.toISOString()} (store clock); ` +
            `arrived at +${arrivals.join(', +')} ms (real time since the start); delivery attemptCount ${delivery.attemptCount}, ` +
            `attempts recorded at ${delivery.attempts.map((a) => a.attemptedAt.toISOString()).join(', ')}`
          );
        }),
    );
    const unknown = [...got.keys()].filter((id) => !events.some((e) => e.id === id));
    expect.soft(missing, 'events never delivered').toEqual([]);
    // Fails today (reported, not fixed here): a delivery of the renewals store claimed before its
    // test clock moves is claimed again, and sent again, right after. The lease end is written
    // in store time (claim time + the store's offset then + the lease, src/jobs/claim.ts), so
    // moving the store's clock a month ends every lease under way; the next claim of any runner
    // (another worker, or the same one's overlapping batch) takes the rows before the first
    // round has recorded its outcomes.
    expect.soft(twice, 'events delivered more than once').toEqual([]);
    expect.soft(unknown, 'deliveries of no recorded event').toEqual([]);
    expect.soft(receiver!.received).toHaveLength(events.length);
    expect.soft(deliveries).toHaveLength(events.length);
    expect.soft(deliveries.filter((d) => d.attemptCount !== 1), 'deliveries attempted more than once').toEqual([]);

    // Every process stops on SIGTERM with exit code 0, having logged no error.
    sampling = false;
    await sampler;
    const processes = [...servers.map((s, i) => ({ name: `server ${i}`, p: s })), ...workers.map((w, i) => ({ name: `worker ${i}`, p: w }))];
    const exits = await Promise.all(processes.map(({ p }) => p.stop()));
    for (const [i, { name, p }] of processes.entries()) {
      expect(exits[i], `${name}:\n${p.output().slice(-3000)}`).toEqual({ code: 0, signal: null });
      expect(p.output(), `${name} logged an error`).not.toMatch(/"level":(50|60)/);
    }
    console.log(
      `[many-processes] scenarios ${scenariosMs} ms, total ${Date.now() - started} ms; ${PURCHASES} purchases, ${SUBSCRIPTIONS} renewals ` +
        `(the advance ran ${JSON.stringify(r.ranByAdvance)}), ${acceptedDebits}/${DEBITS} debits accepted, ${u.batches} ingest batches, ` +
        `${events.length} events delivered; peak connections ${peakConnections}`,
    );
  }, 120_000);
});

function countBy<K>(keys: K[]): Map<K, number> {
  const m = new Map<K, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

/** A seller's webhook receiver on 127.0.0.1 that answers 200 after `delayMs`, keeping every request's body and arrival time. */
class SlowReceiver {
  readonly received: { body: string; at: number }[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(delayMs: number): Promise<SlowReceiver> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const receiver = new SlowReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        receiver.received.push({ body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), delayMs);
      });
    });
    return receiver;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
