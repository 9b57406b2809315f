import type { Database } from './db/database.js';
import { migrationsApplied } from './db/migrate.js';
import type { JobRunner } from './jobs/job-runner.js';

/** What `/readyz` answers: ready only when every check passes. */
export interface Readiness {
  ready: boolean;
  database: 'ok' | 'unreachable';
  migrations: 'applied' | 'pending' | 'unknown';
  /** `external`: this process runs no jobs (JOB_RUNNER=off); `npm run worker` processes do. */
  worker: 'running' | 'stopped' | 'external';
  shutting_down: boolean;
}

/**
 * Readiness of one process: the database answers, the migrations this code expects are
 * applied, its job runner (when it runs one) is running, and it is not shutting down (a load
 * balancer stops sending it requests while it drains). Cheap: one `SELECT 1` per call; the
 * migration history is read until it is found complete once (it never becomes incomplete for
 * the code that is running).
 */
export function readinessCheck(options: { db: Database; jobs: JobRunner | undefined; draining: () => boolean }): () => Promise<Readiness> {
  let migrated = false;
  return async () => {
    let database: Readiness['database'] = 'ok';
    try {
      await options.db.rawQuery('SELECT 1');
    } catch {
      database = 'unreachable';
    }
    if (!migrated && database === 'ok') migrated = await migrationsApplied(options.db);
    const migrations: Readiness['migrations'] = migrated ? 'applied' : database === 'ok' ? 'pending' : 'unknown';
    const worker: Readiness['worker'] = options.jobs ? (options.jobs.running ? 'running' : 'stopped') : 'external';
    const shutting_down = options.draining();
    return { ready: database === 'ok' && migrations === 'applied' && worker !== 'stopped' && !shutting_down, database, migrations, worker, shutting_down };
  };
}
