import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { sha256Hex } from '../src/lib/secrets.js';
import { runCommand } from './support/context.js';
import { openTestDatabase, type TestDatabase } from './support/database.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const tsx = path.join(root, 'node_modules/.bin/tsx');

function cli(args: string[], env: Record<string, string | undefined>) {
  const { DATABASE_URL: _ignored, ...rest } = process.env;
  return run(tsx, ['src/cli.ts', ...args], { cwd: root, env: { ...rest, ...env } as NodeJS.ProcessEnv }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

// Each case starts Node processes that open a WASM PostgreSQL: slow on a loaded 2-core machine.
describe('operator CLI on the embedded database', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'billing-cli-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a store and prints its keys once; only their hashes are stored', async () => {
    // In this process: the command's own code path (a fresh data directory: initdb and every
    // migration), without a Node start; the lock test below runs it as a process.
    const res = await runCommand(['stores', 'create', '--name', 'Acme', '--json'], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    const store = JSON.parse(res.stdout);
    expect(store).toMatchObject({ id: expect.stringMatching(/^sto_/), name: 'Acme' });
    expect(store.test_api_key).toMatch(/^sk_test_/);
    expect(store.prod_api_key).toMatch(/^sk_prod_/);

    const db = await openDatabase({ dataDir });
    try {
      const keys = await db.prisma.apiKey.findMany({ where: { storeId: store.id } });
      expect(keys.map((k) => k.hash).sort()).toEqual([sha256Hex(store.test_api_key), sha256Hex(store.prod_api_key)].sort());
      expect(JSON.stringify(keys)).not.toContain(store.test_api_key);
    } finally {
      await db.close();
    }
  });

  it('refuses clearly, and changes nothing, while another process holds the data directory; takes over once it is gone', async () => {
    // A live process that is not this one holds the lock (this process's own pid counts as stale).
    const holder = spawn('sleep', ['60'], { stdio: 'ignore' });
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    try {
      writeFileSync(path.join(dataDir, 'service.pid'), String(holder.pid));
      const refused = await runCommand(['stores', 'create', '--name', 'Second', '--json'], { DATA_DIR: dataDir });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`is in use by process ${holder.pid}`);
      const server = await run(tsx, ['src/server.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0', TEST_PORT: '0' } }).catch((e) => e);
      expect(server.code).toBe(1);
      expect(server.stderr).toContain('Cannot start: The embedded database');
    } finally {
      holder.kill('SIGKILL');
      await gone;
    }
    // Its pid file is left behind, as after a kill -9: the next command takes the directory over.
    const res = await runCommand(['stores', 'list', '--json'], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).map((s: { name: string }) => s.name)).toEqual(['Acme']);
  });

  it('prints usage and exits 2 for an unknown command', async () => {
    const res = await runCommand(['stores', 'explode'], { DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('usage:');
  });
});

describe.runIf(process.env.DATABASE_URL)('operator CLI on PostgreSQL', { timeout: 120_000 }, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db?.close());

  it('creates a store in the database DATABASE_URL names', async () => {
    const res = await cli(['stores', 'create', '--name', 'PgStore', '--json'], { DATABASE_URL: db.url });
    expect(res.code, res.stderr).toBe(0);
    const store = JSON.parse(res.stdout);
    expect(await db.prisma.store.findUnique({ where: { id: store.id } })).toMatchObject({ name: 'PgStore' });
  });
});
