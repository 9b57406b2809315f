import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { cloneTemplateDatabase, dropDatabase } from './postgres.js';

export interface TestDatabase extends Database {
  /** Connection string when running on PostgreSQL (for tests that start their own processes). */
  url?: string;
}

/** A migrated database of its own for the calling test file; closing it also removes it. */
export async function openTestDatabase(): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    const url = await cloneTemplateDatabase(baseUrl, inject('pgRunId'));
    const db = await openDatabase({ databaseUrl: url, poolSize: 10 });
    return {
      ...db,
      url,
      close: async () => {
        await db.close();
        await dropDatabase(baseUrl, url);
      },
    };
  }
  const db = await openDatabase({ dataDir: undefined });
  await migrate(db);
  return db;
}
