import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';

export function databaseUrlFor(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(baseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createTemplateDatabase(baseUrl: string, runId: string): Promise<void> {
  const name = `${runId}_tpl`;
  await admin(baseUrl, (c) => c.query(`CREATE DATABASE "${name}"`));
  const db = await openDatabase({ databaseUrl: databaseUrlFor(baseUrl, name), poolSize: 2 });
  try {
    await migrate(db);
  } finally {
    await db.close();
  }
}

let counter = 0;

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function cloneTemplateDatabase(baseUrl: string, runId: string): Promise<string> {
  const name = `${runId}_${process.pid}_${++counter}`;
  // Cloning needs the template to itself: test workers take turns through an advisory lock.
  await admin(baseUrl, async (c) => {
    await c.query('SELECT pg_advisory_lock(727001)');
    try {
      await c.query(`CREATE DATABASE "${name}" TEMPLATE "${runId}_tpl"`);
    } finally {
      await c.query('SELECT pg_advisory_unlock(727001)');
    }
  });
  return databaseUrlFor(baseUrl, name);
}

export async function dropDatabase(baseUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await admin(baseUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}

export async function dropRunDatabases(baseUrl: string, runId: string): Promise<void> {
  await admin(baseUrl, async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${runId}\\_%`]);
    for (const { datname } of rows) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  });
}
