import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createTemplateDatabase, dropRunDatabases } from './postgres.js';

/**
 * With DATABASE_URL set, the suite runs against that PostgreSQL server: one migrated
 * template database per run, and every test file clones it (CREATE DATABASE … TEMPLATE),
 * so files never see each other's rows and runs never see each other's databases.
 * Without it, every test file opens its own in-memory embedded database, each a copy of one
 * migrated template: a PGlite dump in a temporary directory of the run, removed afterwards.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('[test] database: embedded PGlite (in memory, one per test file)');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'billing-test-pglite-'));
    const remove = () => rm(dir, { recursive: true, force: true });
    try {
      const file = path.join(dir, 'template.tar');
      await writeFile(file, await dumpMigratedTemplate());
      project.provide('pgliteTemplate', file);
    } catch (err) {
      await remove();
      throw err;
    }
    return remove;
  }
  const runId = `bt_${process.pid}_${Date.now().toString(36)}`;
  console.log(`[test] database: PostgreSQL ${new URL(url).host}, databases ${runId}_*`);
  await createTemplateDatabase(url, runId);
  project.provide('pgRunId', runId);
  return async () => {
    await dropRunDatabases(url, runId);
  };
}

async function dumpMigratedTemplate(): Promise<Uint8Array> {
  const db = await openDatabase({ dataDir: undefined });
  try {
    await migrate(db);
    return new Uint8Array(await (await db.dumpDataDir!()).arrayBuffer());
  } finally {
    await db.close();
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgRunId: string;
    /** Path of the migrated embedded template (a PGlite data directory dump); without DATABASE_URL only. */
    pgliteTemplate?: string;
  }
}
