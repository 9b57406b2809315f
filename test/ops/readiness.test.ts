import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { readinessCheck } from '../../src/readiness.js';
import { startTestService, type TestService } from '../support/service.js';

describe('/healthz and /readyz', () => {
  let service: TestService;
  let withoutRunner: TestService;

  beforeAll(async () => {
    service = await startTestService({ env: { JOB_RUNNER: 'on' } });
    withoutRunner = await startTestService({ env: { JOB_RUNNER: 'off' } });
  });
  afterAll(async () => {
    await service?.close();
    await withoutRunner?.close();
  });

  it('answers ready with what it checked, on both listeners, without a key', async () => {
    for (const base of [service.testUrl, service.prodUrl]) {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ ready: true, database: 'ok', migrations: 'applied', worker: 'running', shutting_down: false });
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    }
  });

  it('with JOB_RUNNER=off reports the worker as external (npm run worker runs the jobs) and stays ready', async () => {
    const res = await fetch(`${withoutRunner.testUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ready: true, worker: 'external' });
  });
});

describe('readiness checks', () => {
  let empty: Database;
  beforeAll(async () => {
    empty = await openDatabase({ pglite: new PGlite() });
  });
  afterAll(() => empty?.close());

  const unreachable = { rawQuery: async () => Promise.reject(new Error('connection refused')) } as unknown as Database;
  const runner = (running: boolean) => ({ running }) as never;

  it('is not ready on a database without the migrations, one that does not answer, a stopped runner, or while draining', async () => {
    expect(await readinessCheck({ db: empty, jobs: undefined, draining: () => false })()).toEqual({ ready: false, database: 'ok', migrations: 'pending', worker: 'external', shutting_down: false });
    expect(await readinessCheck({ db: unreachable, jobs: undefined, draining: () => false })()).toMatchObject({ ready: false, database: 'unreachable', migrations: 'unknown' });
    const migrated = await startTestService({ env: { JOB_RUNNER: 'off' } });
    try {
      expect(await readinessCheck({ db: migrated.db, jobs: runner(false), draining: () => false })()).toMatchObject({ ready: false, worker: 'stopped', migrations: 'applied' });
      expect(await readinessCheck({ db: migrated.db, jobs: runner(true), draining: () => true })()).toMatchObject({ ready: false, worker: 'running', shutting_down: true });
      expect(await readinessCheck({ db: migrated.db, jobs: runner(true), draining: () => false })()).toMatchObject({ ready: true });
    } finally {
      await migrated.close();
    }
  });
});
