import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';
import { NO_FILTERS, openSchemaEngine, readMigrationsList } from './schema-engine.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../prisma/migrations');

/** Apply every migration not yet applied; idempotent. Returns the names applied now. */
export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  return db.withMigrationAdapter(async (adapter) => {
    const engine = await openSchemaEngine(adapter);
    try {
      const { appliedMigrationNames } = await engine.applyMigrations({
        migrationsList: readMigrationsList(dir),
        filters: NO_FILTERS,
      });
      return appliedMigrationNames;
    } finally {
      engine.free();
    }
  });
}
