import { createHash } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { PrismaPg as PrismaPgAdapter } from '@prisma/adapter-pg';
import pg from 'pg';
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQueryable,
} from '@prisma/driver-adapter-utils';
import type { PrismaPGlite as PrismaPGliteAdapter } from 'pglite-prisma-adapter';
import type { PrismaClient } from '../generated/prisma/client.js';
import { lockDataDir } from './data-dir-lock.js';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'embedded' | 'postgres';
  /** Runs `fn` with an adapter factory for the schema engine (migrations), released afterwards. */
  withMigrationAdapter<T>(fn: (adapter: SqlMigrationAwareDriverAdapterFactory) => Promise<T>): Promise<T>;
  /**
   * Follow a notification channel (`pg_notify(channel, payload)` sent inside write
   * transactions, delivered at commit). `onState(false)` means messages may have been
   * missed: the follower must forget what it derived from them. Returns an unsubscribe.
   */
  subscribe(channel: string, onMessage: (payload: string) => void, onState: (live: boolean) => void): Promise<() => Promise<void>>;
  /**
   * Rows of one SQL statement, sent past Prisma and `onStatement` (on PostgreSQL, on a connection
   * of its own). Only for migrate()'s check for pending migrations, so that it costs no start-up
   * of the Prisma client either.
   */
  rawQuery<T extends object>(sql: string): Promise<T[]>;
  /**
   * PostgreSQL only: the Prisma client's connection pool now (the metrics read it at each
   * scrape). The embedded database has one in-process connection and no pool.
   */
  poolStats?(): PoolStats;
  /** Embedded only: a dump of the whole data directory, which `loadDataDir` opens copies of. */
  dumpDataDir?(): Promise<Blob>;
  close(): Promise<void>;
}

/** A pg pool's clients: open (busy or idle), idle, and queries waiting for one; `max` is its size. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/**
 * Called with every SQL statement the Prisma client sends, at the driver adapter, so a test can
 * count what reaches the database rather than what Prisma was asked (one Prisma call may be
 * several statements, or several calls one batched statement).
 */
export type StatementListener = (sql: string) => void;

export type DatabaseOptions = (
  | { databaseUrl: string; poolSize?: number }
  /**
   * dataDir undefined = in memory (tests). `loadDataDir`: start a new database as a copy of a
   * `dumpDataDir()` dump rather than an empty cluster (tests).
   */
  | { dataDir: string | undefined; loadDataDir?: Blob }
  /** An embedded database its caller opened and will close (tests reuse one per worker). */
  | { pglite: PGlite }
) & { onStatement?: StatementListener };

function observeQueryable<Q extends SqlQueryable>(q: Q, onStatement: StatementListener): Q {
  return new Proxy(q, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (query: { sql: string }) => {
          onStatement(query.sql);
          return value.call(target, query);
        };
      }
      if (prop === 'executeScript') {
        return (script: string) => {
          onStatement(script);
          return value.call(target, script);
        };
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => observeQueryable(await value.apply(target, args), onStatement);
      }
      return value.bind(target);
    },
  });
}

/** The adapter factory with every connection it makes reporting its statements. */
function observeFactory(factory: SqlDriverAdapterFactory, onStatement: StatementListener): SqlDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'connect' && typeof value === 'function') {
        return async () => observeQueryable<SqlDriverAdapter>(await value.call(target), onStatement);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const withObserver = (factory: SqlDriverAdapterFactory, onStatement: StatementListener | undefined) =>
  onStatement ? observeFactory(factory, onStatement) : factory;

type PoolCounts = Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount'>;

/**
 * The adapter factory, handing each pool it connects with to `onPool`. The adapter makes its
 * pool from the configuration when the client connects (a pool passed in would have to be an
 * instance of the adapter's own copy of pg, which the bundle does not share).
 */
function trackPool(factory: SqlDriverAdapterFactory, onPool: (pool: PoolCounts) => void): SqlDriverAdapterFactory {
  return new Proxy(factory, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'connect' && typeof value === 'function') {
        return async () => {
          const adapter = (await value.call(target)) as SqlDriverAdapter & { underlyingDriver?(): unknown };
          const pool = adapter.underlyingDriver?.() as Partial<PoolCounts> | undefined;
          if (pool && typeof pool.totalCount === 'number') onPool(pool as PoolCounts);
          return adapter;
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The database the configuration names: PostgreSQL when DATABASE_URL is set, else the embedded one in DATA_DIR. */
export function databaseOptions(config: { databaseUrl: string | undefined; dataDir: string }): DatabaseOptions {
  return config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir };
}

/**
 * The mark that makes a statement a named prepared statement on PostgreSQL: each connection
 * parses it once, and after a few runs PostgreSQL keeps one plan for it instead of planning
 * every call (planning was a fifth of an ingest write's database time). Only hot statements
 * whose text takes few forms carry it, since a connection keeps every statement it prepared.
 */
export const PREPARED = '/* prepared */';

/** Names by statement text: marked texts take few forms, and a map lookup is cheaper than a hash per call. */
const preparedNames = new Map<string, string>();

// Typed as always naming, but the adapter passes the result to pg as `name`, where undefined
// means an unnamed statement, as every other statement stays.
const preparedName = ((query: { sql: string }): string | undefined => {
  if (!query.sql.startsWith(PREPARED)) return undefined;
  let name = preparedNames.get(query.sql);
  if (!name) {
    name = `p_${createHash('sha1').update(query.sql).digest('hex').slice(0, 24)}`;
    preparedNames.set(query.sql, name);
  }
  return name;
}) as (query: { sql: string }) => string;

/**
 * The Prisma client and the driver adapters, loaded on first use: the embedded database's
 * WebAssembly starts before they load (see openDatabase), so the two overlap at start-up.
 */
async function prismaModules(): Promise<{ PrismaClient: typeof PrismaClient; PrismaPg: typeof PrismaPgAdapter; PrismaPGlite: typeof PrismaPGliteAdapter }> {
  const [client, pgAdapter, pgliteAdapter] = await Promise.all([import('../generated/prisma/client.js'), import('@prisma/adapter-pg'), import('pglite-prisma-adapter')]);
  return { PrismaClient: client.PrismaClient, PrismaPg: pgAdapter.PrismaPg, PrismaPGlite: pgliteAdapter.PrismaPGlite };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options) {
    const { PrismaClient, PrismaPg } = await prismaModules();
    const poolConfig = { connectionString: options.databaseUrl, max: options.poolSize ?? 20 };
    let pool: PoolCounts | undefined;
    const adapter = trackPool(new PrismaPg(poolConfig, { statementNameGenerator: preparedName }), (p) => (pool = p));
    const prisma = new PrismaClient({ adapter: withObserver(adapter, options.onStatement) });
    return {
      prisma,
      kind: 'postgres',
      // Before the client's first statement there is no pool yet: nothing open.
      poolStats: () => ({ total: pool?.totalCount ?? 0, idle: pool?.idleCount ?? 0, waiting: pool?.waitingCount ?? 0, max: poolConfig.max }),
      async withMigrationAdapter(fn) {
        // An owned pool, ended afterwards: the engine does not close its connections, and a
        // lingering one would, for example, keep a template database busy.
        const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
        try {
          return await fn(wholeScripts(new PrismaPg(pool), (script) => pool.query(script)));
        } finally {
          await pool.end();
        }
      },
      async rawQuery<T extends object>(sql: string) {
        const client = new pg.Client({ connectionString: options.databaseUrl });
        await client.connect();
        try {
          return (await client.query(sql)).rows as T[];
        } finally {
          await client.end();
        }
      },
      subscribe: (channel, onMessage, onState) => followChannel(options.databaseUrl, channel, onMessage, onState),
      close: () => prisma.$disconnect(),
    };
  }
  const owned = !('pglite' in options);
  const release = 'dataDir' in options && options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    const pglite = 'pglite' in options ? options.pglite : new PGlite({ dataDir: options.dataDir, loadDataDir: options.loadDataDir });
    const [{ PrismaClient, PrismaPGlite }] = await Promise.all([prismaModules(), pglite.waitReady]);
    const prisma = new PrismaClient({ adapter: withObserver(new PrismaPGlite(pglite), options.onStatement) });
    return {
      prisma,
      kind: 'embedded',
      withMigrationAdapter: (fn) => fn(wholeScripts(new PrismaPGlite(pglite), (script) => pglite.exec(script))),
      rawQuery: async <T extends object>(sql: string) => (await pglite.query<T>(sql)).rows,
      // The embedded database belongs to this process alone, so every write is local and
      // local invalidation is complete: the feed is live from the start.
      subscribe: async (_channel, _onMessage, onState) => {
        onState(true);
        return async () => onState(false);
      },
      dumpDataDir: async () => {
        // Flushed first, so a copy opened from the dump has no write-ahead log to replay.
        await pglite.exec('CHECKPOINT');
        // Uncompressed: larger, but each copy opens without unzipping it.
        return pglite.dumpDataDir('none');
      },
      close: async () => {
        await prisma.$disconnect();
        if (owned) await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Migration scripts run whole, as one simple query. The PGlite adapter (pglite-prisma-adapter
 * 0.7) starts a script without waiting for it, so a failing migration was reported as
 * applied; the pg adapter splits a script on every `;`, which breaks a function body. Their
 * connections here run scripts to the end in one piece and let their errors through, so the
 * schema engine records a failure as one.
 */
function wholeScripts(factory: object, run: (script: string) => Promise<unknown>): SqlMigrationAwareDriverAdapterFactory {
  const withScripts = <A extends object>(adapter: A): A =>
    new Proxy(adapter, {
      get(target, prop, receiver) {
        if (prop === 'executeScript') {
          return async (script: string) => void (await run(script));
        }
        const value = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(factory as unknown as SqlMigrationAwareDriverAdapterFactory, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if ((prop === 'connect' || prop === 'connectToShadowDb') && typeof value === 'function') {
        return async () => withScripts(await value.call(target));
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** LISTEN on a dedicated connection, reconnecting after failures; reports when it is (not) live. */
async function followChannel(
  databaseUrl: string,
  channel: string,
  onMessage: (payload: string) => void,
  onState: (live: boolean) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    c.on('notification', (n) => n.channel === channel && onMessage(n.payload ?? ''));
    c.on('error', () => lost(c));
    c.on('end', () => lost(c));
    try {
      await c.connect();
      await c.query(`LISTEN "${channel}"`);
      if (stopped) return void (await c.end());
      client = c;
      onState(true);
    } catch {
      lost(c);
    }
  };
  const lost = (c: pg.Client) => {
    if (client && client !== c) return;
    client = undefined;
    onState(false);
    c.end().catch(() => {});
    if (!stopped && !retry) retry = setTimeout(() => ((retry = undefined), void connect()), 1_000);
  };

  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    onState(false);
    await client?.end().catch(() => {});
  };
}
