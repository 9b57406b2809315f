import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { lockDataDir } from './data-dir-lock.js';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'embedded' | 'postgres';
  /** Runs `fn` with an adapter factory for the schema engine (migrations), released afterwards. */
  withMigrationAdapter<T>(fn: (adapter: SqlMigrationAwareDriverAdapterFactory) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { databaseUrl: string; poolSize?: number }
  /** dataDir undefined = in-memory (tests). */
  | { dataDir: string | undefined };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options) {
    const poolConfig = { connectionString: options.databaseUrl, max: options.poolSize ?? 20 };
    const prisma = new PrismaClient({ adapter: new PrismaPg(poolConfig) });
    return {
      prisma,
      kind: 'postgres',
      async withMigrationAdapter(fn) {
        // An owned pool, ended afterwards: the engine does not close its connections, and a
        // lingering one would, for example, keep a template database busy.
        const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });
        try {
          return await fn(new PrismaPg(pool));
        } finally {
          await pool.end();
        }
      },
      close: () => prisma.$disconnect(),
    };
  }
  const release = options.dataDir ? lockDataDir(options.dataDir) : () => {};
  try {
    const pglite = new PGlite(options.dataDir);
    await pglite.waitReady;
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    return {
      prisma,
      kind: 'embedded',
      withMigrationAdapter: (fn) => fn(new PrismaPGlite(pglite) as unknown as SqlMigrationAwareDriverAdapterFactory),
      close: async () => {
        await prisma.$disconnect();
        await pglite.close();
        release();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
