import { readFile } from 'node:fs/promises';
import { inject } from 'vitest';
import { openDatabase, type Database, type StatementListener } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { cloneTemplateDatabase, dropDatabase } from './postgres.js';

export interface TestDatabase extends Database {
  /** Connection string when running on PostgreSQL (for tests that start their own processes). */
  url?: string;
}

/**
 * A migrated database of its own for the calling test file; closing it also removes it.
 * `onStatement` sees every SQL statement sent (tests that count them).
 */
export async function openTestDatabase(options: { onStatement?: StatementListener } = {}): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (baseUrl) {
    const url = await cloneTemplateDatabase(baseUrl, inject('pgRunId'));
    const db = await openDatabase({ databaseUrl: url, poolSize: 10, onStatement: options.onStatement });
    return {
      ...db,
      url,
      close: async () => {
        await db.close();
        await dropDatabase(baseUrl, url);
      },
    };
  }
  // A copy of the run's migrated template (see global-setup.ts) opens in a fraction of the
  // time migrating an empty database takes. Without one, migrate as before.
  const loadDataDir = await embeddedTemplate();
  if (loadDataDir) return openDatabase({ dataDir: undefined, loadDataDir, onStatement: options.onStatement });
  const db = await openDatabase({ dataDir: undefined, onStatement: options.onStatement });
  await migrate(db);
  return db;
}

/** The run's migrated embedded template (a PGlite dump), when the run made one (no DATABASE_URL). */
export async function embeddedTemplate(): Promise<Blob | undefined> {
  const file = providedTemplate();
  return file ? new Blob([await readFile(file)]) : undefined;
}

function providedTemplate(): string | undefined {
  try {
    return inject('pgliteTemplate');
  } catch {
    return undefined; // not inside a vitest worker
  }
}
