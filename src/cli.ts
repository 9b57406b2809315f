/**
 * Operator commands: npm run --silent cli -- <command>
 *   stores create --name NAME [--json]     a store and one API key per environment
 *   stores list [--json]
 *   keys create --store ID --mode test|prod
 *   keys revoke --key KEY_ID
 *   db migrate                              apply pending migrations
 *   listen --forward-to URL --api-key KEY --endpoint WEBHOOK_ID [--url SERVICE] [--once]
 *                                           forward a cli webhook endpoint's events to a local server
 * Store commands use DATA_DIR / DATABASE_URL like the server. While a server runs on the
 * embedded database (which belongs to its process), they ask that server over its local
 * administration channel (DATA_DIR/admin.sock) and print the same answer. `listen` is a client
 * of a running service's REST API and opens no database.
 */
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import type { Database } from './db/database.js';
import { AppError } from './lib/errors.js';
import { listen, ListenError } from './cli/listen.js';
import { AdminCommandError } from './admin/client.js';
import type { StoreCommands } from './admin/store-commands.js';

const USAGE = `usage:
  cli stores create --name NAME [--json]
  cli stores list [--json]
  cli keys create --store STORE_ID --mode test|prod
  cli keys revoke --key KEY_ID
  cli db migrate
  cli listen --forward-to URL [--api-key KEY] [--endpoint WEBHOOK_ID] [--url http://127.0.0.1:8081] [--once]
      (key and endpoint also from BILLING_API_KEY / BILLING_WEBHOOK_ID)`;

/**
 * The store and key commands on the configured database, as the CLI reaches it: `direct`, the
 * database opened (and migrated) here, which `close()` closes; or `remote`, when the embedded
 * database is held by a running server, asked of that server over its local administration
 * channel (src/admin/channel.ts). On PostgreSQL always direct. Loaded only for these commands
 * (and the demo, src/cli/demo.ts): `listen` opens no database, and loading the data layer is
 * most of a command's start-up time.
 */
export type StoreAccess =
  | { kind: 'direct'; db: Database; commands: StoreCommands; close(): Promise<void> }
  | { kind: 'remote'; socket: string; commands: StoreCommands; close(): Promise<void> };

export async function openStoreAccess(config: Config): Promise<StoreAccess> {
  const [{ databaseOptions, openDatabase }, { migrate }, { databaseStoreCommands }] = await Promise.all([
    import('./db/database.js'),
    import('./db/migrate.js'),
    import('./admin/store-commands.js'),
  ]);
  let db: Database;
  try {
    db = await openDatabase(databaseOptions(config));
  } catch (err) {
    if (err instanceof DataDirInUseError && !config.databaseUrl) {
      const { adminChannelAnswers, remoteStoreCommands } = await import('./admin/client.js');
      const { adminSocketPath } = await import('./admin/channel.js');
      const socket = adminSocketPath(config.dataDir);
      if (await adminChannelAnswers(socket)) return { kind: 'remote', socket, commands: remoteStoreCommands(socket), close: async () => {} };
    }
    throw err;
  }
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return { kind: 'direct', db, commands: databaseStoreCommands(db), close: () => db.close() };
}

/** A store command on the configured database (see openStoreAccess), closed afterwards. */
async function withStoreCommands<T>(env: NodeJS.ProcessEnv, fn: (commands: StoreCommands) => Promise<T>): Promise<T> {
  const access = await openStoreAccess(loadConfig(env));
  try {
    return await fn(access.commands);
  } finally {
    await access.close();
  }
}

/** Where a command writes, and the environment it reads (a test runs commands in-process with its own). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

const processIo: CliIo = { out: (t) => console.log(t), err: (t) => console.error(t), env: process.env };

/** Runs a command; answers its exit code (0 done, 1 failed, 2 usage), having said why on `err`. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  try {
    return await runCli(argv, io);
  } catch (err) {
    if (err instanceof DataDirInUseError || err instanceof ListenError || err instanceof AdminCommandError) io.err(err.message);
    else if (err instanceof AppError) io.err(err.messages().join('\n'));
    else io.err(String(err instanceof Error ? (err.stack ?? err.message) : err));
    return 1;
  }
}

async function runCli(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, json: { type: 'boolean' }, store: { type: 'string' }, mode: { type: 'string' }, key: { type: 'string' },
      'forward-to': { type: 'string' }, 'api-key': { type: 'string' }, endpoint: { type: 'string' }, url: { type: 'string' }, once: { type: 'boolean' } },
  });
  const command = positionals.join(' ');
  const print = (obj: unknown, text: string) => io.out(values.json ? JSON.stringify(obj, null, 2) : text);
  switch (command) {
    case 'stores create': {
      const store = await withStoreCommands(io.env, (c) => c.createStore(values.name));
      print(store, `Store ${store.id} (${store.name})\n  test key: ${store.test_api_key}\n  prod key: ${store.prod_api_key}\nKeys are shown once; keep them safe.`);
      return 0;
    }
    case 'stores list': {
      const stores = await withStoreCommands(io.env, (c) => c.listStores());
      print(stores, stores.map((s) => `${s.id}  ${s.name}  keys: ${s.keys.map((k) => `${k.prefix}…${k.revoked ? ' (revoked)' : ''}`).join(', ')}`).join('\n') || 'no stores');
      return 0;
    }
    case 'keys create': {
      if (!values.store || (values.mode !== 'test' && values.mode !== 'prod')) break;
      const key = await withStoreCommands(io.env, (c) => c.createKey(values.store!, values.mode as 'test' | 'prod'));
      print(key, `${key.mode} key ${key.id}: ${key.key}`);
      return 0;
    }
    case 'keys revoke': {
      if (!values.key) break;
      const result = await withStoreCommands(io.env, (c) => c.revokeKey(values.key!));
      print(result, `revoked ${result.id}`);
      return 0;
    }
    case 'db migrate': {
      const applied = await withStoreCommands(io.env, (c) => c.migrate());
      print({ applied }, applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      return 0;
    }
    case 'listen': {
      if (!values['forward-to']) break;
      // First Ctrl-C: finish the event in hand (forward + ack) and stop; a second one quits at once.
      const stop = new AbortController();
      const onSigint = () => (stop.signal.aborted ? process.exit(130) : stop.abort());
      process.on('SIGINT', onSigint);
      try {
        const summary = await listen({
          serviceUrl: values.url ?? 'http://127.0.0.1:8081',
          apiKey: values['api-key'] ?? io.env.BILLING_API_KEY ?? '',
          endpointId: values.endpoint ?? io.env.BILLING_WEBHOOK_ID ?? '',
          forwardTo: values['forward-to'],
          once: values.once ?? false,
          signal: stop.signal,
          print: io.out,
          warn: io.err,
        });
        return summary.unacknowledged === 0 ? 0 : 1;
      } finally {
        process.off('SIGINT', onSigint);
      }
    }
  }
  io.err(USAGE);
  return 2;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
