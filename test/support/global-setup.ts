import type { TestProject } from 'vitest/node';
import { createTemplateDatabase, dropRunDatabases } from './postgres.js';

/**
 * With DATABASE_URL set, the suite runs against that PostgreSQL server: one migrated
 * template database per run, and every test file clones it (CREATE DATABASE … TEMPLATE),
 * so files never see each other's rows and runs never see each other's databases.
 * Without it, every test file opens its own in-memory embedded database instead.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.log('[test] database: embedded PGlite (in memory, one per test file)');
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

declare module 'vitest' {
  export interface ProvidedContext {
    pgRunId: string;
  }
}
