import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeContext, type TestContext } from '../../test/support/context.js';
import { openTestDatabase, type TestDatabase } from '../../test/support/database.js';
import { scheduleJobs } from '../jobs/scheduled-jobs.js';
import { newId } from '../lib/ids.js';
import { inTransaction, insertRows, lockRows, updateRows } from './tenant.js';

/**
 * The bulk writers batches use (renewals, events): each row gets its own values, and the
 * tenant rule holds as for the bound client: another store's rows are never written.
 */
describe('bulk rows of one tenant', () => {
  let db: TestDatabase;
  let a: TestContext;
  let b: TestContext;

  beforeAll(async () => {
    db = await openTestDatabase();
    a = await storeContext(db);
    b = await storeContext(db);
  });
  afterAll(() => db?.close());

  const customers = async (ctx: TestContext, n: number) => {
    const rows = Array.from({ length: n }, (_, i) => ({ id: newId('customer'), email: `c${i}.${newId('customer').slice(-6)}@example.com`, name: null, country: 'DE', createdAt: ctx.clock.now() }));
    await insertRows(ctx, 'Customer', rows);
    return rows.map((r) => r.id);
  };

  it('inserts rows stamped with the caller’s store and environment, updatedAt set', async () => {
    const ids = await customers(a, 3);
    const stored = await db.prisma.customer.findMany({ where: { id: { in: ids } }, orderBy: { id: 'asc' } });
    expect(stored.map((c) => [c.storeId, c.mode, c.country, c.name])).toEqual(ids.map(() => [a.storeId, 'test', 'DE', null]));
    expect(stored.every((c) => c.updatedAt instanceof Date)).toBe(true);
    await expect(insertRows(a, 'Customer', [{ id: newId('customer'), email: 'x@example.com', createdAt: new Date() }, { id: newId('customer'), name: 'no email', createdAt: new Date() }])).rejects.toThrow(
      /every row gives the same columns/,
    );
    await expect(insertRows(a, 'Customer', [{ id: newId('customer'), storeId: b.storeId, email: 'x@example.com' }])).rejects.toThrow(/not a column a tenant writes/);
  });

  it('updates each row with its own values, only rows of the caller’s tenant, only while `onlyIf` holds', async () => {
    const mine = await customers(a, 2);
    const theirs = await customers(b, 1);
    const written = await updateRows(
      a,
      'Customer',
      [...mine, ...theirs].map((id, i) => ({ id, name: `name ${i}`, country: i === 0 ? 'FR' : 'IT' })),
      { onlyIf: { country: 'DE' } },
    );
    expect(written.map((r) => r.id).sort()).toEqual([...mine].sort());
    const after = await db.prisma.customer.findMany({ where: { id: { in: [...mine, ...theirs] } }, orderBy: { id: 'asc' } });
    expect(after.map((c) => [c.id, c.name, c.country])).toEqual([
      [mine[0], 'name 0', 'FR'],
      [mine[1], 'name 1', 'IT'],
      [theirs[0], null, 'DE'],
    ]);
    // Nothing matches any more: written once.
    expect(await updateRows(a, 'Customer', mine.map((id) => ({ id, name: 'again' })), { onlyIf: { country: 'DE' } })).toEqual([]);
  });

  it('locks only the caller’s rows and says which exist', async () => {
    const mine = await customers(a, 2);
    const theirs = await customers(b, 1);
    expect(await inTransaction(a, (tx) => lockRows(tx, 'Customer', [...theirs, ...mine, 'cust_missing']))).toEqual([...mine].sort());
  });

  it('schedules many jobs at once, rescheduling existing ones, never another store’s job of the same subject', async () => {
    const at = (h: number) => new Date(Date.UTC(2026, 1, 1, h));
    await inTransaction(b, (tx) => scheduleJobs(tx, 'test.bulk', [{ subjectId: 'shared-subject', dueAt: at(1) }]));
    await db.prisma.job.updateMany({ where: { subjectId: 'shared-subject' }, data: { status: 'succeeded', attemptCount: 3 } });
    await inTransaction(a, (tx) =>
      scheduleJobs(tx, 'test.bulk', [
        { subjectId: 'shared-subject', dueAt: at(2) },
        { subjectId: 'a-only', dueAt: at(3) },
      ]),
    );
    await inTransaction(a, (tx) => scheduleJobs(tx, 'test.bulk', [{ subjectId: 'a-only', dueAt: at(4) }]));
    const jobs = await db.prisma.job.findMany({ where: { kind: 'test.bulk' }, orderBy: { subjectId: 'asc' } });
    expect(jobs.map((j) => [j.subjectId, j.storeId, j.status, j.attemptCount, j.nextAttemptAt])).toEqual([
      ['a-only', a.storeId, 'pending', 0, at(4)],
      ['shared-subject', b.storeId, 'succeeded', 3, at(1)],
    ]);
  });
});
