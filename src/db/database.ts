import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../generated/prisma/client.js';
import { lockDataDir } from './data-dir-lock.js';

export type Prisma = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  kind: 'embedded' | 'postgres';
  /** A fresh adapter factory for the schema engine (migrations). */
  migrationAdapter(): SqlMigrationAwareDriverAdapterFactory;
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
      migrationAdapter: () => new PrismaPg({ connectionString: options.databaseUrl, max: 2 }),
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
      migrationAdapter: () => new PrismaPGlite(pglite) as unknown as SqlMigrationAwareDriverAdapterFactory,
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
