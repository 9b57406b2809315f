/**
 * Prisma's schema engine compiled to WebAssembly. The native engine binary cannot be
 * downloaded on our machines (see docs on Prisma offline), so migrations are created and
 * applied through this module, over the same driver adapters the application uses.
 * It writes the standard `_prisma_migrations` table, so `prisma migrate deploy` on a
 * machine with the native CLI sees the same history.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');
type Engine = Awaited<ReturnType<Glue['SchemaEngine']['new']>>;

let glue: Glue | undefined;

async function loadGlue() {
  if (glue) return glue;
  // The package's main entry imports the .wasm file as an ES module, which Node rejects;
  // wire the JS glue to a manually instantiated module instead.
  const mod = await import('@prisma/schema-engine-wasm/schema_engine_bg');
  const pkgDir = path.dirname(createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const wasm = new WebAssembly.Module(readFileSync(path.join(pkgDir, 'schema_engine_bg.wasm')));
  const instance = new WebAssembly.Instance(wasm, { './schema_engine_bg.js': mod });
  (mod as unknown as { __wbg_set_wasm(e: unknown): void }).__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
  glue = mod;
  return mod;
}

export async function openSchemaEngine(adapter: SqlMigrationAwareDriverAdapterFactory, log: (m: string) => void = () => {}) {
  const g = await loadGlue();
  return g.SchemaEngine.new({ datamodels: undefined }, log, bindMigrationAwareSqlAdapterFactory(adapter));
}

export const NO_FILTERS = { externalTables: [], externalEnums: [] };

export function readMigrationsList(dir: string) {
  const lockPath = path.join(dir, 'migration_lock.toml');
  const names = existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()
    : [];
  return {
    baseDir: dir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: readFileSync(path.join(dir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

export type { Engine as SchemaEngine };
