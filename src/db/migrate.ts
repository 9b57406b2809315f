import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';
import { NO_FILTERS, openSchemaEngine, readMigrationsList } from './schema-engine.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

type MigrationDirectory = ReturnType<typeof readMigrationsList>['migrationDirectories'][number];

/** Apply every migration not yet applied; idempotent. Returns the names applied now. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrationsList = readMigrationsList(dir);
  // Instantiating the WebAssembly schema engine costs a noticeable part of every start (and of
  // every test database), while nearly always there is nothing to apply.
  if (await allApplied(db, migrationsList.migrationDirectories)) return [];
  return db.withMigrationAdapter(async (adapter) => {
    const engine = await openSchemaEngine(adapter);
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}

/** Whether every migration directory is recorded as applied (what readiness reports). */
export function migrationsApplied(db: Database, dir = MIGRATIONS_DIR): Promise<boolean> {
  return allApplied(db, readMigrationsList(dir).migrationDirectories);
}

/**
 * Whether the engine's own history table (`_prisma_migrations`) already records every migration
 * directory as applied, with the checksum the engine records (SHA-256 hex of migration.sql).
 * Any doubt answers false and leaves the decision to the engine, as before: no table yet, an
 * edited file, an error. So does a failed or unfinished migration anywhere in the history,
 * which the engine must get to report (P3009) rather than the service starting on it.
 */
async function allApplied(db: Database, directories: MigrationDirectory[]): Promise<boolean> {
  try {
    const [table] = await db.rawQuery<{ present: boolean }>(`SELECT to_regclass('_prisma_migrations') IS NOT NULL AS present`);
    if (!table?.present) return false;
    const rows = await db.rawQuery<{ migration_name: string; checksum: string; finished: boolean }>(
      `SELECT migration_name, checksum, finished_at IS NOT NULL AS finished FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
    );
    if (rows.some((r) => !r.finished)) return false;
    const applied = new Set(rows.map((r) => `${r.migration_name}/${r.checksum}`));
    return directories.every((d) => applied.has(`${d.path}/${sha256(d.migrationFile.content.value)}`));
  } catch {
    return false;
  }
}

// The engine hashes the text it is handed (see readMigrationsList), so hash that same text.
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
