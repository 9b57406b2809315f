import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminSocketPath, openAdminChannel, type AdminChannel } from '../../src/admin/channel.js';
import { databaseStoreCommands } from '../../src/admin/store-commands.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import { embeddedTemplate } from '../support/database.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** The CLI as a user runs it, in its own process, on this test's data directory. */
async function cli(dataDir: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * While a server holds the embedded database (here: this process, as the server does), the
 * CLI's store and key commands go over DATA_DIR/admin.sock and print what they print when the
 * CLI opens the database itself.
 */
describe('store and key commands while the embedded database is in use', () => {
  let dataDir: string;
  let db: Database | undefined;
  let channel: AdminChannel | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'billing-admin-'));
    db = await openDatabase({ dataDir, loadDataDir: await embeddedTemplate() });
    // (The migrated template exists on embedded runs only; elsewhere the database migrates here.)
    await migrate(db);
    channel = await openAdminChannel(dataDir, databaseStoreCommands(db), createLogger('silent'));
  }, 60_000);
  afterAll(async () => {
    await channel?.close();
    await db?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers over a socket only its owner can open, with the JSON the direct commands print', async () => {
    expect(channel!.path).toBe(adminSocketPath(dataDir));
    const mode = statSync(channel!.path).mode;
    expect(statSync(channel!.path).isSocket()).toBe(true);
    expect(mode & 0o777).toBe(0o600);

    const remote = await cli(dataDir, 'stores', 'create', '--name', 'Over the channel', '--json');
    expect(remote.code, remote.stderr).toBe(0);
    const store = JSON.parse(remote.stdout) as Record<string, string>;
    expect(Object.keys(store).sort()).toEqual(['created_at', 'id', 'name', 'prod_api_key', 'test_api_key']);
    // Written by the server's database: it sees the store and its keys.
    expect(await db!.prisma.apiKey.count({ where: { storeId: store.id } })).toBe(2);

    const key = await cli(dataDir, 'keys', 'create', '--store', store.id!, '--mode', 'test', '--json');
    expect(key.code, key.stderr).toBe(0);
    const created = JSON.parse(key.stdout) as { id: string; key: string; mode: string };
    expect(created).toMatchObject({ mode: 'test', key: expect.stringMatching(/^sk_test_/) });
    expect(JSON.parse((await cli(dataDir, 'keys', 'revoke', '--key', created.id, '--json')).stdout)).toEqual({ id: created.id, revoked: true });
    const listed = JSON.parse((await cli(dataDir, 'stores', 'list', '--json')).stdout) as { id: string; keys: { revoked: boolean }[] }[];
    expect(listed.find((s) => s.id === store.id)!.keys.filter((k) => k.revoked)).toHaveLength(1);

    // A refusal reads as it does without the server: the message, exit code 1.
    const refused = await cli(dataDir, 'keys', 'create', '--store', 'sto_nope', '--mode', 'test');
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('Store sto_nope not found') });

    // The same command with the database free: opened directly, the same shape of answer.
    await channel!.close();
    channel = undefined;
    await db!.close();
    db = undefined;
    const direct = await cli(dataDir, 'stores', 'create', '--name', 'Directly', '--json');
    expect(direct.code, direct.stderr).toBe(0);
    expect(Object.keys(JSON.parse(direct.stdout) as object).sort()).toEqual(Object.keys(store).sort());
    expect((await cli(dataDir, 'stores', 'list')).stdout).toContain('Over the channel');
  }, 120_000);

  it('says the database is in use when no server answers on the socket', async () => {
    const other = await mkdtemp(path.join(os.tmpdir(), 'billing-admin-'));
    const held = await openDatabase({ dataDir: other, loadDataDir: await embeddedTemplate() });
    try {
      const answer = await cli(other, 'stores', 'list');
      expect(answer.code).toBe(1);
      expect(answer.stderr).toMatch(/is in use by process/);
    } finally {
      await held.close();
      await rm(other, { recursive: true, force: true });
    }
  }, 60_000);
});
