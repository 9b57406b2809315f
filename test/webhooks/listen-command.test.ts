import { execFile, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Creem } from 'creem';
import { parseWebhookEventEntity, verifyWebhookSignature } from 'creem/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../src/context.js';
import { lockDataDir } from '../../src/db/data-dir-lock.js';
import { inTransaction } from '../../src/db/tenant.js';
import { recordEvent, type EventType } from '../../src/modules/events/events.service.js';
import { signDelivery } from '../../src/modules/webhooks/signing.js';
import { makePaidCheckout, makeRecurringProduct } from '../support/factories.js';
import { startTestService, type TestService } from '../support/service.js';
import { insertEndpoint, Receiver, waitUntil } from './delivery-support.js';
import { runCommand } from '../support/context.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

let service: TestService;
let storeId: string;
let seller: RequestContext;
let key: string;
let client: Creem;
let receiver: Receiver;
let dataDir: string;
let releaseDataDir: () => void;

beforeAll(async () => {
  service = await startTestService();
  const store = await service.createStore('Listen store');
  storeId = store.id;
  seller = service.contextOf(store, 'test');
  key = store.test_api_key;
  client = new Creem({ apiKey: key, serverURL: service.testUrl });
  receiver = await Receiver.start();
  // The command is an API client: were it to open the database it would trip over this lock.
  dataDir = mkdtempSync(path.join(tmpdir(), 'billing-listen-'));
  releaseDataDir = lockDataDir(dataDir);
});
afterAll(async () => {
  releaseDataDir?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  await receiver?.close();
  await service?.close();
});

/** The CLI as a developer runs it, in its own process, with no database settings of its own. */
function childEnv(extra: Record<string, string> = {}) {
  const { DATABASE_URL: _db, BILLING_API_KEY: _k, BILLING_WEBHOOK_ID: _w, ...rest } = process.env;
  return { ...rest, DATA_DIR: dataDir, ...extra } as NodeJS.ProcessEnv;
}

function cli(args: string[], env: Record<string, string> = {}) {
  return run(tsx, ['src/cli.ts', ...args], { cwd: root, env: childEnv(env) }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** Records an event the way every change does: recordEvent inside a transaction. */
const emit = (type: EventType, payload: { id: string }) => inTransaction(seller, (tx) => recordEvent(tx, type, payload));

const cliEndpoint = (events: string[]) => insertEndpoint(service.db.prisma, { storeId, mode: 'test', url: '', events, deliveryMode: 'cli' });

const pendingIds = async (endpointId: string) => (await client.webhooks.listPendingEvents(endpointId, 100)).items.map((i) => i.id);

const ackAttempts = (endpointId: string) =>
  service.db.prisma.deliveryAttempt.findMany({ where: { delivery: { endpointId }, source: 'ack' }, include: { delivery: true }, orderBy: { attemptedAt: 'asc' } });

describe('cli listen', { timeout: 120_000 }, () => {
  it('forwards a purchase’s events byte for byte with their signed headers and acknowledges each with the local status', async () => {
    const endpoint = await cliEndpoint(['checkout.completed', 'subscription.active', 'subscription.paid']);
    const product = await makeRecurringProduct(seller, { name: 'Pro', description: 'Monthly', price: 2900 });
    await makePaidCheckout(seller, product.id);
    const events = await service.db.prisma.event.findMany({ where: { id: { in: await pendingIds(endpoint.id) } } });
    expect(events.map((e) => e.type).sort()).toEqual(['checkout.completed', 'subscription.active', 'subscription.paid']);

    // The seller's server is broken for subscription.paid this time.
    receiver.received.length = 0;
    receiver.behaviour = (_n, got) => (got.body.includes('"eventType":"subscription.paid"') ? { status: 500, body: 'db down' } : { status: 200, body: 'ok' });
    const res = await cli(['listen', '--once', '--forward-to', receiver.url, '--api-key', key, '--endpoint', endpoint.id, '--url', service.testUrl]);
    expect(res.code, res.stderr).toBe(0);

    expect(receiver.received).toHaveLength(3);
    for (const got of receiver.received) {
      const event = events.find((e) => e.id === got.headers['webhook-id'])!;
      const forEvent = { id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload };
      const signed = signDelivery(forEvent, endpoint.secret, new Date(Number(got.headers['webhook-timestamp']) * 1000));
      expect(got.body).toBe(signed.body);
      for (const [name, value] of Object.entries(signed.headers)) expect(got.headers[name], name).toBe(value);
      await expect(verifyWebhookSignature(got.body, got.headers as Record<string, string>, endpoint.secret)).resolves.toBeUndefined();
      expect(got.headers['service-signature']).toBe(createHmac('sha256', endpoint.secret).update(got.body).digest('hex'));
      expect(parseWebhookEventEntity(got.body).eventType).toBe(event.type);
    }
    // Oldest first, as recorded by the checkout.
    expect(receiver.received.map((r) => JSON.parse(r.body).eventType)).toEqual(['checkout.completed', 'subscription.active', 'subscription.paid']);

    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const [i, event] of ['checkout.completed', 'subscription.active', 'subscription.paid'].entries()) {
      const id = events.find((e) => e.type === event)!.id;
      expect(lines[i]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+\\s+${event.replace('.', '\\.')}\\s+${id}\\s+-> ${event === 'subscription.paid' ? 500 : 200}$`));
    }
    expect(res.stderr).toContain(`Forwarding events of webhook ${endpoint.id}`);

    const paid = events.find((e) => e.type === 'subscription.paid')!;
    expect(await pendingIds(endpoint.id)).toEqual([paid.id]);
    expect((await ackAttempts(endpoint.id)).map((a) => [a.delivery.eventId, a.statusCode, a.responseExcerpt])).toEqual(
      receiver.received.map((r) => {
        const id = r.headers['webhook-id'];
        return id === paid.id ? [id, 500, 'db down'] : [id, 200, 'ok'];
      }),
    );

    // Fixed: the next run (key and endpoint from the environment) delivers only what was left.
    receiver.received.length = 0;
    receiver.behaviour = () => ({ status: 200, body: 'ok' });
    // In this process (the command's process is covered above), reading key and endpoint from its environment.
    const again = await runCommand(['listen', '--once', '--forward-to', receiver.url, '--url', service.testUrl], { BILLING_API_KEY: key, BILLING_WEBHOOK_ID: endpoint.id });
    expect(again.code, again.stderr).toBe(0);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([paid.id]);
    expect(again.stdout).toMatch(new RegExp(`subscription\\.paid\\s+${paid.id}\\s+-> 200\\n$`));
    expect(await pendingIds(endpoint.id)).toEqual([]);
  });

  it('acknowledges 503 when the local server is down, so the event stays pending', async () => {
    const endpoint = await cliEndpoint(['subscription.canceled']);
    const event = await emit('subscription.canceled', { id: 'sub_gone' });
    const down = await Receiver.start();
    const downUrl = down.url;
    await down.close();
    const res = await runCommand(['listen', '--once', '--forward-to', downUrl, '--api-key', key, '--endpoint', endpoint.id, '--url', service.testUrl]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`subscription\\.canceled\\s+${event.id}\\s+-> 503 \\(ECONNREFUSED\\)`));
    expect(await pendingIds(endpoint.id)).toEqual([event.id]);
    const [attempt] = await ackAttempts(endpoint.id);
    expect(attempt).toMatchObject({ statusCode: 503, responseExcerpt: expect.stringContaining(`could not reach ${downUrl}`) });
  });

  it('keeps polling until Ctrl-C, forwarding events as they are recorded', async () => {
    const endpoint = await cliEndpoint(['subscription.expired']);
    receiver.received.length = 0;
    receiver.behaviour = () => ({ status: 200, body: 'ok' });
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'listen', '--forward-to', receiver.url, '--url', service.testUrl], {
      cwd: root,
      env: childEnv({ BILLING_API_KEY: key, BILLING_WEBHOOK_ID: endpoint.id }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => stderr.includes('Ctrl-C'), { timeoutMs: 60_000, what: () => `listen did not start: ${stderr}` });
      const emitted: string[] = [];
      for (const name of ['sub_a', 'sub_b']) {
        const event = await emit('subscription.expired', { id: name });
        emitted.push(event.id);
        await receiver.waitFor((got) => got.some((r) => r.headers['webhook-id'] === event.id));
      }
      // The last acknowledgement has landed when nothing is pending and its line (printed after it) is out.
      await waitUntil(async () => stdout.includes(emitted.at(-1)!) && (await pendingIds(endpoint.id)).length === 0, {
        what: () => `listen did not acknowledge ${emitted.join(', ')}: ${stdout} ${stderr}`,
      });
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(0);
      expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual(emitted);
      expect(stdout.trim().split('\n').map((l) => l.split(/\s+/)[2])).toEqual(emitted);
      expect(await pendingIds(endpoint.id)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('stops with a clear message for a bad key, an http endpoint or missing arguments', async () => {
    const http = await insertEndpoint(service.db.prisma, { storeId, mode: 'test', url: 'http://127.0.0.1:9/none', events: ['subscription.paused'] });
    const common = ['listen', '--once', '--forward-to', receiver.url, '--url', service.testUrl];
    // The same command code as a process runs, called in this one: the process itself is covered above.
    const [badKey, notCli, noEndpoint, usage, serviceDown] = await Promise.all([
      runCommand([...common, '--api-key', 'sk_test_wrong', '--endpoint', http.id]),
      runCommand([...common, '--api-key', key, '--endpoint', http.id]),
      runCommand([...common, '--api-key', key]),
      runCommand(['listen', '--api-key', key]),
      runCommand(['listen', '--once', '--forward-to', receiver.url, '--url', 'http://127.0.0.1:9', '--api-key', key, '--endpoint', http.id]),
    ]);
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/40[13]/);
    expect(notCli.code).toBe(1);
    expect(notCli.stderr).toContain('delivery_mode http');
    expect(noEndpoint.code).toBe(1);
    expect(noEndpoint.stderr).toContain('BILLING_WEBHOOK_ID');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--forward-to');
    expect(serviceDown.code).toBe(1);
    expect(serviceDown.stderr).toContain('cannot reach the service at http://127.0.0.1:9');
  });
});
