import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
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
  // A copy of the run's migrated template (see global-setup.ts), or a database of this worker
  // that an earlier file closed, emptied; each file gets a Prisma client of its own.
  const reused = idle.pop();
  const pglite = reused ?? (await newEmbeddedDatabase());
  if (reused) await empty(pglite);
  const db = await openDatabase({ pglite, onStatement: options.onStatement });
  let open = true;
  return {
    ...db,
    close: async () => {
      if (!open) return;
      open = false;
      await db.close();
      idle.push(pglite);
    },
  };
}

/**
 * Embedded databases of this worker that a test file has closed. Opening one from the
 * template takes about a second (Postgres starts in WebAssembly); emptying a used one takes a
 * few milliseconds, so a worker keeps the ones it made and hands them out again, emptied.
 */
const idle: PGlite[] = [];

async function empty(pglite: PGlite): Promise<void> {
  const { rows } = await pglite.query<{ name: string }>(`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`);
  await pglite.exec(`TRUNCATE ${rows.map((r) => `"${r.name}"`).join(', ')} CASCADE`);
}

async function newEmbeddedDatabase(): Promise<PGlite> {
  const loadDataDir = await embeddedTemplate();
  const pglite = new PGlite({ loadDataDir });
  if (!loadDataDir) {
    const db = await openDatabase({ pglite });
    await migrate(db);
    await db.close();
  }
  return pglite;
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

/**
 * A test database that records the SQL statements sent (at the driver adapter, so nothing
 * Prisma does internally hides) while `recorded` runs: tests that show a read costs a fixed
 * number of statements, whatever the number of rows.
 */
export async function openRecordingDatabase(): Promise<{ db: TestDatabase; recorded<T>(fn: () => Promise<T>): Promise<{ value: T; statements: string[] }> }> {
  let sink: string[] | undefined;
  const db = await openTestDatabase({ onStatement: (sql) => sink?.push(sql) });
  return {
    db,
    async recorded(fn) {
      const statements: string[] = [];
      sink = statements;
      try {
        return { value: await fn(), statements };
      } finally {
        sink = undefined;
      }
    },
  };
}
