import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, freePorts, startTs, stopChild, waitForHealthy, type Child } from '../../bench/children.js';
import { contextFor } from '../../src/context.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { dataScope } from '../../src/db/tenant.js';
import { systemClock } from '../../src/lib/clock.js';
import { createStore } from '../../src/modules/stores/stores.service.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { BUYER, CheckoutBrowser } from '../support/checkout-page.js';
import { embeddedTemplate, openTestDatabase, type TestDatabase } from '../support/database.js';
import { makeProduct } from '../support/factories.js';
import { insertEndpoint, Receiver } from './delivery-support.js';

const onPostgres = Boolean(process.env.DATABASE_URL);
let pgDb: TestDatabase | undefined;
let dataDir: string | undefined;
let seeded = false;
let receiver: Receiver;
const children: Child[] = [];

/** The database the server processes use; on the embedded one, only while no server holds the directory. */
async function openShared(): Promise<Database> {
  if (pgDb) return { ...pgDb, close: async () => {} };
  // The data directory starts as a copy of the run's migrated template.
  const db = await openDatabase({ dataDir: dataDir!, loadDataDir: seeded ? undefined : await embeddedTemplate() });
  seeded = true;
  await migrate(db);
  return db;
}

beforeAll(async () => {
  receiver = await Receiver.start();
  if (onPostgres) pgDb = await openTestDatabase();
  else dataDir = await mkdtemp(path.join(os.tmpdir(), 'webhook-restart-'));
});
afterAll(async () => {
  for (const c of children) await stopChild(c);
  await receiver?.close();
  await pgDb?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function startServer(vars: Record<string, string>): Promise<{ child: Child; testUrl: string }> {
  const [port, testPort] = (await freePorts(2)) as [number, number];
  const dbVars: Record<string, string> = pgDb ? { DATABASE_URL: pgDb.url! } : { DATA_DIR: dataDir! };
  const child = startTs('server', 'src/server.ts', [], childEnv({ ...dbVars, HOST: '127.0.0.1', PORT: String(port), TEST_PORT: String(testPort), LOG_LEVEL: 'warn', ...vars }));
  children.push(child);
  const testUrl = `http://127.0.0.1:${testPort}`;
  await waitForHealthy(child, `${testUrl}/healthz`);
  return { child, testUrl };
}

describe('server killed between the commit of an event and its delivery', () => {
  it('delivers the event after a restart', async () => {
    const setup = await openShared();
    const store = await createStore(setup.prisma, { name: 'Seller' });
    const { secret } = await insertEndpoint(setup.prisma, { storeId: store.id, mode: 'test', url: receiver.url, events: ['checkout.completed'] });
    const sellerCtx = contextFor({ data: dataScope(setup.prisma), mode: 'test', clock: systemClock, baseUrl: 'http://127.0.0.1' }, store.id, { traceId: 'setup', source: 'test' });
    const product = await makeProduct(sellerCtx, { name: 'App', price: 1500 });
    await setup.close();

    // No job runner in this process: the purchase commits its event and outbox row, nothing sends it.
    const first = await startServer({ JOB_RUNNER: 'off' });
    const headers = { 'content-type': 'application/json', 'x-api-key': store.test_api_key };
    const checkout = await (await fetch(`${first.testUrl}/v1/checkouts`, { method: 'POST', headers, body: JSON.stringify({ product_id: product.id }) })).json() as { checkout_url: string };
    const paid = await new CheckoutBrowser(first.testUrl).pay(checkout.checkout_url, { ...BUYER });
    expect(paid.status).toBe(303);
    first.child.proc.kill('SIGKILL');
    expect(await first.child.exited).toBe('SIGKILL');
    expect(receiver.received).toHaveLength(0);

    // The next process on the same database (this one), with the job runner on (the default):
    // it takes over the dead process's data-dir lock, recovers the database and delivers.
    const next = await openShared();
    const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', TEST_PORT: '0' });
    const second = await startService({ config, logger: createLogger('silent'), db: next });
    try {
      await receiver.waitFor((r) => r.length >= 1, 30_000);
    } finally {
      await second.close();
    }
    const got = receiver.received[0]!;
    expect(createHmac('sha256', secret).update(got.body).digest('hex')).toBe(got.headers['service-signature']);
    expect(JSON.parse(got.body)).toMatchObject({ eventType: 'checkout.completed', object: { id: expect.stringMatching(/^ch_/), status: 'completed' } });
    expect(receiver.received).toHaveLength(1);
    try {
      const delivery = await next.prisma.webhookDelivery.findFirstOrThrow({ where: { endpoint: { storeId: store.id } }, include: { attempts: true } });
      expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1, eventId: got.headers['webhook-id'] });
      expect(delivery.attempts).toHaveLength(1);
    } finally {
      await next.close();
    }
  }, 120_000);
});
