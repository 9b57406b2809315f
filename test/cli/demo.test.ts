import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseStoreCommands } from '../../src/admin/store-commands.js';
import { DEMO_DISCOUNT_CODE, DEMO_EMAIL, DEMO_STORE_NAME, runDemo, type DemoResult } from '../../src/cli/demo.js';
import { openDatabase } from '../../src/db/database.js';
import { closedPort } from '../webhooks/delivery-support.js';
import { api, startTestService, type TestService } from '../support/service.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

/** The commands the demo printed (indented lines), in order. */
const printed = (output: string, start: string) => output.split('\n').filter((l) => l.startsWith(`  ${start} `)).map((l) => l.slice(2));

/** Runs a printed command exactly as a reader pasting it into bash would. */
async function paste(command: string): Promise<any> {
  const { stdout } = await run('bash', ['-c', command], { cwd: root });
  return JSON.parse(stdout);
}

describe('npm run demo with a server running', () => {
  let service: TestService;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    service = await startTestService();
    const test = new URL(service.testUrl);
    env = { HOST: test.hostname, TEST_PORT: test.port, PORT: new URL(service.prodUrl).port, LOG_LEVEL: 'silent' };
  });
  afterAll(() => service?.close());

  async function demo(): Promise<{ result: DemoResult; output: string }> {
    let output = '';
    const io = { out: (t: string) => void (output += `${t}\n`), err: (t: string) => void (output += `${t}\n`) };
    const result = await runDemo(io, env, { commands: databaseStoreCommands(service.db) });
    return { result, output };
  }

  it('fills a new store through the API and the hosted checkout, and prints commands that work as printed', async () => {
    const { result, output } = await demo();
    expect(result.serverWasRunning).toBe(true);
    expect(result.testUrl).toBe(service.testUrl);
    expect(result.testKey).toMatch(/^sk_test_/);
    expect(output).toContain(result.testKey);
    expect(output).toContain('test environment only');
    const rest = api(service.testUrl, result.testKey);

    const store = await service.db.prisma.store.findUniqueOrThrow({ where: { id: result.store.id } });
    expect(store.name).toBe(DEMO_STORE_NAME);

    const oneTime = await rest('GET', `/v1/products/${result.products.oneTime}`);
    expect(oneTime.json).toMatchObject({ billing_type: 'onetime', price: 4900, features: [expect.objectContaining({ type: 'licenseKey' })] });
    expect((await rest('GET', `/v1/products/${result.products.recurring}`)).json).toMatchObject({ billing_type: 'recurring', billing_period: 'every-month' });
    expect((await rest('GET', `/v1/products/${result.products.free}`)).json).toMatchObject({ price: 0 });
    expect((await rest('GET', `/v1/discounts?discount_code=${DEMO_DISCOUNT_CODE}`)).json).toMatchObject({ id: result.discount.id, status: 'active' });
    expect((await rest('GET', `/v1/webhooks/${result.webhookEndpoint}`)).json).toMatchObject({ id: result.webhookEndpoint, delivery_mode: 'cli' });

    const customer = (await rest('GET', `/v1/customers?email=${DEMO_EMAIL}`)).json;
    expect(customer).toMatchObject({ id: result.customer.id, email: DEMO_EMAIL });
    const orders = (await rest('GET', `/v1/customers/${customer.id}/orders`)).json.items;
    expect(orders.map((o: any) => [o.product, o.status]).sort()).toEqual(
      [[result.products.oneTime, 'paid'], [result.products.recurring, 'paid']].sort(),
    );
    // The discount took 10% off the one-time purchase.
    expect(orders.find((o: any) => o.product === result.products.oneTime)).toMatchObject({ discount: result.discount.id, amount_paid: 4410 });
    expect((await rest('GET', `/v1/subscriptions?subscription_id=${result.subscription}`)).json).toMatchObject({ status: 'active', customer: expect.objectContaining({ id: customer.id }) });
    const licenses = (await rest('GET', `/v1/customers/${customer.id}/licenses`)).json.items;
    expect(licenses).toEqual([expect.objectContaining({ id: result.license.id, key: result.license.key, product_id: result.products.oneTime })]);
    const transactions = (await rest('GET', `/v1/transactions/search?customer_id=${customer.id}`)).json.items;
    expect(transactions.map((t: any) => t.id).sort()).toEqual([...result.transactions].sort());
    expect(transactions).toHaveLength(2);
    // The cli endpoint holds the purchases' events for `cli listen`.
    const pending = (await rest('GET', `/v1/webhooks/${result.webhookEndpoint}/events/pending`)).json.items;
    expect(pending.map((e: any) => e.event_type)).toEqual(expect.arrayContaining(['checkout.completed', 'subscription.active']));

    // The commands, pasted into bash as printed.
    const [customerCommand, graphCommand] = printed(output, 'curl');
    expect([customerCommand, graphCommand]).toEqual([result.commands.customer, result.commands.graph]);
    expect(await paste(customerCommand!)).toMatchObject({ id: customer.id, email: DEMO_EMAIL });
    const graph = await paste(graphCommand!);
    expect(graph.errors).toBeUndefined();
    const node = graph.data.customers.edges[0].node;
    expect(graph.data.customers.totalCount).toBe(1);
    expect(node).toMatchObject({ id: customer.id, email: DEMO_EMAIL });
    const subscription = node.subscriptions.edges[0].node;
    expect(subscription).toMatchObject({ id: result.subscription, status: 'active' });
    expect(subscription.transactions.edges.map((e: any) => e.node)).toEqual([expect.objectContaining({ type: 'invoice', status: 'paid' })]);
    expect(node.licenses.edges.map((e: any) => e.node.id)).toEqual([result.license.id]);
    expect(printed(output, 'npm')).toEqual([result.commands.listen]);
    expect(result.commands.listen).toContain(`--endpoint ${result.webhookEndpoint}`);
  });

  it('runs again: another demo store of its own', async () => {
    const first = await demo();
    const second = await demo();
    expect(second.result.store.id).not.toBe(first.result.store.id);
    expect(second.result.customer.id).not.toBe(first.result.customer.id);
    const graph = await paste(second.result.commands.graph);
    expect(graph.data.customers.edges.map((e: any) => e.node.id)).toEqual([second.result.customer.id]);
  });
});

describe('npm run demo with no server running', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-demo-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  // A Node process that opens a fresh embedded database (initdb and every migration): slow on a loaded machine.
  it('starts the service itself, fills the data directory, stops and exits 0', { timeout: 90_000 }, async () => {
    const [port, testPort] = [await closedPort(), await closedPort()];
    const { DATABASE_URL: _embedded, ...rest } = process.env;
    const env = { ...rest, HOST: '127.0.0.1', DATA_DIR: dataDir, PORT: String(port), TEST_PORT: String(testPort), LOG_LEVEL: 'warn' };
    const child = await run(tsx, ['src/cli/demo.ts'], { cwd: root, env }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(child.code, `${child.stdout}\n${child.stderr}`).toBe(0);
    expect(child.stdout).toContain('The server is not running');
    expect(child.stdout).toContain(`http://127.0.0.1:${testPort}/graphql`);
    // The first start on this data directory: the default store, as `npm start` would have made it.
    expect(child.stdout).toContain('First start: created "Default store"');

    // The data stays in the data directory, which the process let go of.
    const db = await openDatabase({ dataDir });
    try {
      const store = await db.prisma.store.findFirstOrThrow({ where: { name: DEMO_STORE_NAME } });
      const where = { storeId: store.id, mode: 'test' as const };
      expect(await db.prisma.product.count({ where })).toBe(3);
      expect(await db.prisma.customer.findMany({ where, select: { email: true } })).toEqual([{ email: DEMO_EMAIL }]);
      expect(await db.prisma.order.count({ where: { ...where, status: 'paid' } })).toBe(2);
      expect(await db.prisma.subscription.count({ where: { ...where, status: 'active' } })).toBe(1);
      expect(await db.prisma.license.count({ where })).toBe(1);
      expect(await db.prisma.webhookEndpoint.count({ where: { ...where, deliveryMode: 'cli' } })).toBe(1);
      expect(await db.prisma.discount.count({ where })).toBe(1);
      expect(child.stdout).toContain(store.id);
    } finally {
      await db.close();
    }
  });
});
