import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { migrate, MIGRATIONS_DIR } from './migrate.js';
import { embeddedTemplate, openTestDatabase } from '../../test/support/database.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The project's migrations plus one more, in a folder of their own. */
function migrationsWith(name: string, sql: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrations-'));
  dirs.push(dir);
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  mkdirSync(path.join(dir, name));
  writeFileSync(path.join(dir, name, 'migration.sql'), sql);
  return dir;
}

describe('migrations', () => {
  it('applies a migration as one script on either database: a function body may hold semicolons', async () => {
    // The pg adapter splits scripts on every semicolon; migrations bypass that (wholeScripts in database.ts).
    const dir = migrationsWith('29991231000001_function', 'CREATE FUNCTION "semicolons"() RETURNS INT LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN 41 + 1;\nEND\n$$;\n');
    const db = await openTestDatabase();
    try {
      await migrate(db, dir);
      expect(await db.prisma.$queryRawUnsafe<{ v: number }[]>('SELECT "semicolons"() AS v')).toEqual([{ v: 42 }]);
    } finally {
      await db.close();
    }
  });

  // The embedded database's adapter is the one at fault; the PostgreSQL run has no embedded template.
  it.skipIf(process.env.DATABASE_URL)('reports a failing migration on the embedded database as failed, not applied', async () => {
    const dir = migrationsWith('29991231000000_broken', 'CREATE TABLE "Broken" ("id" TEXT);\nSELECT * FROM "NoSuchTable";\n');
    const db = await openDatabase({ dataDir: undefined, loadDataDir: await embeddedTemplate() });
    try {
      await expect(migrate(db, dir)).rejects.toThrow(/NoSuchTable|29991231000000_broken/);
      const rows = await db.prisma.$queryRawUnsafe<{ migration_name: string; finished_at: Date | null }[]>(
        `SELECT migration_name, finished_at FROM _prisma_migrations WHERE migration_name = '29991231000000_broken'`,
      );
      expect(rows.map((r) => r.finished_at)).toEqual([null]);
    } finally {
      await db.close();
    }
  });
});
