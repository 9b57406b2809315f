/** A throw-away PostgreSQL database per run, so the benchmark never touches data of anyone else. */
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  url: string;
  /** `SELECT version()` of the server. */
  version: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery<T extends pg.QueryResultRow>(adminUrl: string, sql: string): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query<T>(sql);
  } finally {
    await client.end();
  }
}

/** `adminUrl` points at an existing database (`test`) that we only use to issue CREATE/DROP DATABASE. */
export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  // Lower case and digits only, so the name needs no quoting and is safe to interpolate.
  const name = `bench_${process.pid}_${Date.now()}`;
  const { rows } = await adminQuery<{ version: string }>(adminUrl, 'SELECT version() AS version');
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return {
    name,
    url: withDatabase(adminUrl, name),
    version: rows[0]?.version ?? 'unknown',
    // FORCE ends connections a killed child may have left behind, which would otherwise block the drop.
    drop: async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
