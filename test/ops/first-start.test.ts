import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceFirstStart } from '../../src/admin/first-start.js';
import type { Logger } from '../../src/logger.js';
import { createDefaultStore, createStore } from '../../src/modules/stores/stores.service.js';
import { openTestDatabase, type TestDatabase } from '../support/database.js';

describe('the first start', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(() => db?.close());

  it('creates one default store however many processes start at once, prints its keys once, logs none', async () => {
    const logged: string[] = [];
    const logger = { info: (...args: unknown[]) => logged.push(JSON.stringify(args)) } as unknown as Logger;
    const printed: string[] = [];
    const urls = { test: 'http://127.0.0.1:8081', prod: 'http://127.0.0.1:8080' };
    const starts = await Promise.all(Array.from({ length: 5 }, () => announceFirstStart(db, urls, logger, (t) => printed.push(t))));
    const created = starts.filter((s) => s !== null);
    expect(created).toHaveLength(1);
    expect(await db.prisma.store.count()).toBe(1);
    expect(printed).toHaveLength(1);
    const store = created[0]!;
    expect(printed[0]).toContain(store.test_api_key);
    expect(printed[0]).toContain(store.prod_api_key);
    expect(printed[0]).toContain('http://127.0.0.1:8081/graphql');
    expect(printed[0]).toMatch(/will not be shown again/);
    expect(logged.join('\n')).toContain(store.id);
    expect(logged.join('\n')).not.toMatch(/sk_(test|prod)_/);

    // Later starts: a store exists, nothing is created or printed.
    expect(await announceFirstStart(db, urls, logger, (t) => printed.push(t))).toBeNull();
    expect(printed).toHaveLength(1);
  });

  it('creates nothing on a service that already has a store', async () => {
    const other = await openTestDatabase();
    try {
      await createStore(other.prisma, { name: 'Existing' });
      expect(await createDefaultStore(other.prisma)).toBeNull();
      expect(await other.prisma.store.count()).toBe(1);
    } finally {
      await other.close();
    }
  });
});
