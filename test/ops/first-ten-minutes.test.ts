import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '../support/processes.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The README's first section, followed as written on a fresh data directory: `npm start`
 * prints the default store's keys once; the test key reads the API; the CLI creates a second
 * store while the server runs; `npm run demo` fills a store and prints a curl command and a
 * GraphQL query, which run as printed; a second start prints no keys.
 */
describe('the first ten minutes, as the README tells them', () => {
  let dataDir: string;
  let server: ServiceProcess | undefined;
  /** The README's commands run with the data directory and ports of this test (the defaults otherwise). */
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'billing-first-'));
  });
  afterAll(async () => {
    await server?.stop('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const npm = (args: string[]) => run('npm', args, { cwd: ROOT, env, timeout: 120_000 });

  it('npm start prints the keys once; the key works; the CLI creates a store while the server runs; the demo prints commands that work', async () => {
    // 1. npm start, on the embedded database in a new data directory.
    // A new data directory: the first start creates the database and applies every migration.
    server = await startServiceProcess('server', { DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' }, { viaNpm: true, readyWithinMs: 120_000 });
    const s = server;
    const testPort = new URL(s.testUrl).port;
    env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', TEST_PORT: testPort, PORT: new URL(s.prodUrl).port, HOST: '127.0.0.1' };
    await waitFor(() => /test key\s+sk_test_/.test(s.output()));
    const printed = s.output();
    const testKey = /test key\s+(sk_test_\S+)/.exec(printed)![1]!;
    expect(printed).toMatch(/production key\s+sk_prod_\S+/);
    expect(printed).toContain(`GraphiQL        ${s.testUrl}/graphql`);
    expect(printed).toMatch(/will not be shown again/);
    // The keys are printed, not logged: no log line carries them.
    expect(printed.split('\n').filter((l) => l.startsWith('{') && l.includes(testKey))).toEqual([]);

    // 2. The test key reads the API.
    const products = await fetch(`${s.testUrl}/v1/products/search`, { headers: { 'x-api-key': testKey } });
    expect(products.status).toBe(200);
    expect(await products.json()).toMatchObject({ items: [], pagination: { total_records: 0 } });

    // 3. A second store, with the server running.
    const created = JSON.parse((await npm(['run', '--silent', 'cli', '--', 'stores', 'create', '--name', 'Acme', '--json'])).stdout) as { id: string; test_api_key: string };
    expect(created.test_api_key).toMatch(/^sk_test_/);
    expect((await fetch(`${s.testUrl}/v1/products/search`, { headers: { 'x-api-key': created.test_api_key } })).status).toBe(200);
    // The key commands too: a new key works, and once revoked it is refused at once.
    const key = JSON.parse((await npm(['run', '--silent', 'cli', '--', 'keys', 'create', '--store', created.id, '--mode', 'test', '--json'])).stdout) as { id: string; key: string };
    const withKey = () => fetch(`${s.testUrl}/v1/products/search`, { headers: { 'x-api-key': key.key } });
    expect((await withKey()).status).toBe(200);
    await npm(['run', '--silent', 'cli', '--', 'keys', 'revoke', '--key', key.id]);
    expect((await withKey()).status).toBe(403);
    const listed = (await npm(['run', '--silent', 'cli', '--', 'stores', 'list'])).stdout;
    expect(listed).toContain('Default store');
    expect(listed).toContain(created.id);

    // 4. The demo, then what it printed, as printed.
    const demo = (await npm(['run', '--silent', 'demo'])).stdout;
    const commands = demo.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('curl '));
    expect(commands.length).toBeGreaterThanOrEqual(2);
    const graph = commands.find((c) => c.includes('/graphql'))!;
    const answer = JSON.parse((await run('bash', ['-c', graph], { cwd: ROOT })).stdout) as { data?: unknown; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    const customers = JSON.stringify(answer.data);
    expect(customers).toContain('"subscriptions"');
    expect(customers).toContain('"transactions"');
    expect(customers).toMatch(/"status":"active"/);
    const rest = commands.find((c) => !c.includes('/graphql'))!;
    expect(JSON.parse((await run('bash', ['-c', rest], { cwd: ROOT })).stdout)).toBeTruthy();

    // A second start prints no keys. (npm ends by the signal it passed on; the service itself
    // stops cleanly: it says so and releases the data directory.)
    await stopped(s, dataDir);
    server = await startServiceProcess('server', { DATA_DIR: dataDir, DATABASE_URL: '', PORT: env.PORT, TEST_PORT: testPort }, { viaNpm: true, readyWithinMs: 60_000 });
    expect(server.output()).not.toMatch(/sk_test_|sk_prod_/);
    await stopped(server, dataDir);
    server = undefined;
  }, 240_000);
});

async function stopped(s: ServiceProcess, dataDir: string): Promise<void> {
  const exit = await s.stop();
  expect([exit.code === 0, exit.signal === 'SIGTERM']).toContain(true);
  await waitFor(() => !existsSync(path.join(dataDir, 'service.pid')), 30_000).catch(() => {
    throw new Error(`the service did not release ${dataDir} after SIGTERM:\n${s.output().split('\n').filter((l) => !l.includes('"msg":"request"')).slice(-15).join('\n')}`);
  });
  expect(s.output()).toContain('"msg":"shutting down"');
  expect(s.output()).not.toMatch(/"level":(50|60)/);
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
