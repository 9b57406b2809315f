/**
 * Operator commands: npm run --silent cli -- <command>
 *   stores create --name NAME [--json]     a store and one API key per environment
 *   stores list [--json]
 *   keys create --store ID --mode test|prod
 *   keys revoke --key KEY_ID
 *   db migrate                              apply pending migrations
 *   listen --forward-to URL --api-key KEY --endpoint WEBHOOK_ID [--url SERVICE] [--once]
 *                                           forward a cli webhook endpoint's events to a local server
 * Store commands use DATA_DIR / DATABASE_URL like the server; the embedded database must not
 * be open in a running server at the same time. `listen` is a client of a running service's
 * REST API and opens no database.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import type { Database } from './db/database.js';
import { AppError } from './lib/errors.js';
import { listen, ListenError } from './cli/listen.js';

const USAGE = `usage:
  cli stores create --name NAME [--json]
  cli stores list [--json]
  cli keys create --store STORE_ID --mode test|prod
  cli keys revoke --key KEY_ID
  cli db migrate
  cli listen --forward-to URL [--api-key KEY] [--endpoint WEBHOOK_ID] [--url http://127.0.0.1:8081] [--once]
      (key and endpoint also from BILLING_API_KEY / BILLING_WEBHOOK_ID)`;

type Stores = typeof import('./modules/stores/stores.service.js');
type Migrate = typeof import('./db/migrate.js')['migrate'];

/**
 * The database and what the store commands need, loaded only for them: `listen` opens no
 * database, and loading the data layer is most of a command's start-up time.
 */
async function withDatabase<T>(env: NodeJS.ProcessEnv, fn: (db: Database, stores: Stores, migrate: Migrate) => Promise<T>): Promise<T> {
  const [{ databaseOptions, openDatabase }, { migrate }, stores] = await Promise.all([
    import('./db/database.js'),
    import('./db/migrate.js'),
    import('./modules/stores/stores.service.js'),
  ]);
  const db = await openDatabase(databaseOptions(loadConfig(env)));
  try {
    await migrate(db);
    return await fn(db, stores, migrate);
  } finally {
    await db.close();
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
    if (err instanceof DataDirInUseError || err instanceof ListenError) io.err(err.message);
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
      const store = await withDatabase(io.env, (db, stores) => stores.createStore(db.prisma, { name: values.name }));
      print(store, `Store ${store.id} (${store.name})\n  test key: ${store.test_api_key}\n  prod key: ${store.prod_api_key}\nKeys are shown once; keep them safe.`);
      return 0;
    }
    case 'stores list': {
      const stores = await withDatabase(io.env, (db, { listStores }) => listStores(db.prisma));
      print(stores, stores.map((s) => `${s.id}  ${s.name}  keys: ${s.keys.map((k) => `${k.prefix}…${k.revoked ? ' (revoked)' : ''}`).join(', ')}`).join('\n') || 'no stores');
      return 0;
    }
    case 'keys create': {
      if (!values.store || (values.mode !== 'test' && values.mode !== 'prod')) break;
      const key = await withDatabase(io.env, (db, { createApiKey }) => createApiKey(db.prisma, values.store!, values.mode as 'test' | 'prod'));
      print(key, `${key.mode} key ${key.id}: ${key.key}`);
      return 0;
    }
    case 'keys revoke': {
      if (!values.key) break;
      const result = await withDatabase(io.env, (db, { revokeApiKey }) => revokeApiKey(db.prisma, values.key!, new Date()));
      print(result, `revoked ${result.id}`);
      return 0;
    }
    case 'db migrate': {
      const applied = await withDatabase(io.env, (db, _stores, migrate) => migrate(db));
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
