import { createHash, randomUUID } from 'node:crypto';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TestProject } from 'vitest/node';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { readMigrationsList } from '../../src/db/schema-engine.js';
import { createTemplateDatabase, dropRunDatabases } from './postgres.js';

/**
 * With DATABASE_URL set, the suite runs against that PostgreSQL server: one migrated
 * template database per run, and every test file clones it (CREATE DATABASE … TEMPLATE),
 * so files never see each other's rows and runs never see each other's databases.
 * Without it, every test file opens its own in-memory embedded database, a copy of one
 * migrated template (a PGlite dump kept in node_modules/.cache) or a database of its worker
 * that an earlier file closed, emptied (test/support/database.ts).
 */
export default async function setup(project: TestProject) {
  // Tests that run the service as its own process (test/support/processes.ts) run the compiled
  // bundle, built here once rather than by each of them at the same time.
  const { buildIfStale } = (await import(pathToFileURL(path.resolve(import.meta.dirname, '../../scripts/build.mjs')).href)) as { buildIfStale(): Promise<boolean> };
  if (await buildIfStale()) console.log('[test] compiled the service (build/service)');
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('[test] database: embedded PGlite (in memory, one per test file)');
    project.provide('pgliteTemplate', await migratedTemplateFile());
    return;
  }
  const runId = `bt_${process.pid}_${Date.now().toString(36)}`;
  console.log(`[test] database: PostgreSQL ${new URL(url).host}, databases ${runId}_*`);
  await createTemplateDatabase(url, runId);
  project.provide('pgRunId', runId);
  return async () => {
    await dropRunDatabases(url, runId);
  };
}

const NODE_MODULES = path.resolve(import.meta.dirname, '../../node_modules');
const CACHE_DIR = path.join(NODE_MODULES, '.cache/billing-test');

/**
 * The migrated embedded template as a file, made once and kept in node_modules/.cache: its
 * name is a hash of every migration and of the PGlite version, so a new or edited migration,
 * or another PGlite, makes a new one. Making one takes several seconds (Postgres' initdb in
 * WebAssembly); every later run reads it.
 */
async function migratedTemplateFile(): Promise<string> {
  const hash = createHash('sha256');
  hash.update(JSON.parse(await readFile(path.join(NODE_MODULES, '@electric-sql/pglite/package.json'), 'utf8')).version);
  for (const m of readMigrationsList(MIGRATIONS_DIR).migrationDirectories) hash.update(m.path).update(m.migrationFile.content.value);
  const file = path.join(CACHE_DIR, `pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
  try {
    await access(file);
    return file;
  } catch {
    await mkdir(CACHE_DIR, { recursive: true });
    const partial = `${file}.${process.pid}.partial`;
    await writeFile(partial, await dumpMigratedTemplate());
    await rename(partial, file); // atomic: a concurrent run never reads half a file
    // Templates of older migrations are 40 MB each and never read again.
    for (const old of await readdir(CACHE_DIR)) {
      if (old.startsWith('pglite-template-') && old.endsWith('.tar') && path.join(CACHE_DIR, old) !== file) await rm(path.join(CACHE_DIR, old), { force: true });
    }
    return file;
  }
}

/**
 * The template: the migrations' SQL run in order, and recorded in `_prisma_migrations` as the
 * schema engine records them (SHA-256 of the file as checksum), so `migrate()` finds every one
 * applied. Running the SQL directly saves the WebAssembly schema engine's start and its
 * per-statement round trips, about half of making a template on a clean checkout; the service
 * itself, and the tests of migrations, still go through the engine.
 */
async function dumpMigratedTemplate(): Promise<Uint8Array> {
  const pglite = new PGlite();
  try {
    await pglite.exec(`CREATE TABLE "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    for (const m of readMigrationsList(MIGRATIONS_DIR).migrationDirectories) {
      const sql = m.migrationFile.content.value;
      await pglite.exec(sql);
      await pglite.query(`INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "applied_steps_count") VALUES ($1, $2, now(), $3, 1)`, [
        randomUUID(),
        createHash('sha256').update(sql).digest('hex'),
        m.path,
      ]);
    }
    // Flushed first, so a copy opened from the dump has no write-ahead log to replay.
    await pglite.exec('CHECKPOINT');
    return new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await pglite.close();
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgRunId: string;
    /** Path of the migrated embedded template (a PGlite data directory dump); without DATABASE_URL only. */
    pgliteTemplate?: string;
  }
}
