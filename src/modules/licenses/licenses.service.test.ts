import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestContext } from '../../context.js';
import type { ManualClock } from '../../lib/clock.js';
import { inTransaction } from '../../db/tenant.js';
import { AppError } from '../../lib/errors.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { perform, storeContext } from '../../../test/support/context.js';
import { createCustomerOp } from '../customers/customers.operations.js';
import { createProductOp } from '../products/products.operations.js';
import {
  activateLicenseOp,
  deactivateLicenseOp,
  listCustomerLicensesOp,
  listLicenseInstancesOp,
  validateLicenseOp,
} from './licenses.operations.js';
import { serializeLicense } from './licenses.serializer.js';
import { issueLicense } from './licenses.service.js';

const DAY = 24 * 60 * 60 * 1000;

// The operations as the transports run them: raw input validated by the operation's schema, writes in one transaction.
const activateLicense = (c: RequestContext, raw: unknown) => perform(c, activateLicenseOp, raw);
const validateLicense = (c: RequestContext, raw: unknown) => perform(c, validateLicenseOp, raw);
const deactivateLicense = (c: RequestContext, raw: unknown) => perform(c, deactivateLicenseOp, raw);
const listLicenseInstances = (c: RequestContext, raw: unknown) => perform(c, listLicenseInstancesOp, raw);
const listCustomerLicenses = (c: RequestContext, raw: unknown) => perform(c, listCustomerLicensesOp, raw);

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('licenses service rules', () => {
  let db: TestDatabase;
  let ctx: RequestContext & { clock: ManualClock };
  let productId: string;
  let customerId: string;

  async function issue(options: { activationLimit?: number | null; expiresInDays?: number | null } = {}) {
    return inTransaction(ctx, (tx) =>
      issueLicense(tx, {
        productId,
        customerId,
        orderId: null,
        subscriptionId: null,
        activationLimit: options.activationLimit === undefined ? 3 : options.activationLimit,
        expiresInDays: options.expiresInDays ?? null,
      }),
    );
  }

  const instancesOf = (licenseId: string) => db.prisma.licenseInstance.findMany({ where: { licenseId } });
  const activationCountOf = async (licenseId: string) => (await db.prisma.license.findUniqueOrThrow({ where: { id: licenseId } })).activationCount;

  beforeAll(async () => {
    db = await openTestDatabase();
    ctx = await storeContext(db);
    const product = await perform(ctx, createProductOp, {
      name: 'Desktop app',
      price: 4900,
      currency: 'EUR',
      billing_type: 'onetime',
      features: [{ type: 'licenseKey', description: 'Key', license_key: { activation_limit: 3, expires_in_days: 365 } }],
    });
    productId = product.id;
    customerId = (await perform(ctx, createCustomerOp, { email: 'buyer@example.com' })).id;
  });
  afterAll(() => db?.close());

  it('issues unguessable, typeable keys that start inactive and expire after the given days', async () => {
    const a = await issue({ expiresInDays: 30 });
    const b = await issue();
    expect(a.key).toMatch(/^[A-Z2-7]{5}(-[A-Z2-7]{5}){4}$/);
    expect(a.key).not.toBe(b.key);
    expect(a.expiresAt?.getTime()).toBe(ctx.clock.now().getTime() + 30 * DAY);
    expect(b.expiresAt).toBeNull();
    expect(serializeLicense(a, ctx.clock.now())).toMatchObject({ object: 'license', status: 'inactive', activation: 0, activation_limit: 3, instance: null });
  });

  it('activates up to the limit, then refuses naming the key and writes nothing', async () => {
    const license = await issue({ activationLimit: 2 });
    const first = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    expect(first.license).toMatchObject({ activationCount: 1, status: 'active' });
    // The instance belongs to the license's store and environment.
    expect(first.instance).toMatchObject({ name: 'laptop', status: 'active', licenseId: license.id, storeId: ctx.storeId, mode: 'test' });
    await activateLicense(ctx, { key: license.key, instance_name: 'desktop' });
    const refused = await failure(activateLicense(ctx, { key: license.key, instance_name: 'third' }));
    expect(refused.code).toBe('activation_limit_reached');
    expect(refused.kind).toBe('invalid_request');
    expect(refused.messages()).toEqual(['key: activation limit of 2 reached']);
    expect(await instancesOf(license.id)).toHaveLength(2);
    expect(await activationCountOf(license.id)).toBe(2);
  });

  it('never exceeds the limit under concurrent activations', async () => {
    const license = await issue({ activationLimit: 3 });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => activateLicense(ctx, { key: license.key, instance_name: `device ${i}` })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected.map((r) => (r.reason as AppError).code)).toEqual(Array(5).fill('activation_limit_reached'));
    expect(await activationCountOf(license.id)).toBe(3);
    expect(await instancesOf(license.id)).toHaveLength(3);
  });

  it('activates without limit when the limit is null', async () => {
    const license = await issue({ activationLimit: null });
    for (let i = 0; i < 5; i++) await activateLicense(ctx, { key: license.key, instance_name: `vm ${i}` });
    const { license: after } = await activateLicense(ctx, { key: license.key, instance_name: 'vm 6' });
    expect(after.activationCount).toBe(6);
    expect(serializeLicense(after, ctx.clock.now()).activation_limit).toBeNull();
  });

  it('validates an instance of the key and 404s an instance of another key', async () => {
    const license = await issue();
    const other = await issue();
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    const { instance: foreign } = await activateLicense(ctx, { key: other.key, instance_name: 'elsewhere' });
    const ok = await validateLicense(ctx, { key: license.key, instance_id: instance.id });
    expect(serializeLicense(ok.license, ctx.clock.now(), ok.instance)).toMatchObject({
      status: 'active',
      activation: 1,
      instance: { id: instance.id, object: 'license-instance', status: 'active', name: 'laptop' },
    });
    expect((await failure(validateLicense(ctx, { key: license.key, instance_id: foreign.id }))).code).toBe('not_found');
    expect((await failure(validateLicense(ctx, { key: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA', instance_id: instance.id }))).code).toBe('not_found');
  });

  it('answers an expired key with status expired on validate and refuses to activate it', async () => {
    const start = ctx.clock.now().getTime();
    const license = await issue({ expiresInDays: 10 });
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    try {
      ctx.clock.advance(10 * DAY - 1);
      const before = await validateLicense(ctx, { key: license.key, instance_id: instance.id });
      expect(serializeLicense(before.license, ctx.clock.now(), before.instance).status).toBe('active');
      ctx.clock.advance(1);
      const after = await validateLicense(ctx, { key: license.key, instance_id: instance.id });
      expect(serializeLicense(after.license, ctx.clock.now(), after.instance).status).toBe('expired');
      const refused = await failure(activateLicense(ctx, { key: license.key, instance_name: 'desktop' }));
      expect(refused.code).toBe('license_expired');
      expect(refused.messages()).toEqual([`key: license key expired on ${new Date(start + 10 * DAY).toISOString()}`]);
      expect(await instancesOf(license.id)).toHaveLength(1);
    } finally {
      ctx.clock.set(start);
    }
  });

  it('answers a disabled key with status disabled and refuses to activate it', async () => {
    const license = await issue();
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    await db.prisma.license.update({ where: { id: license.id }, data: { status: 'disabled' } });
    const v = await validateLicense(ctx, { key: license.key, instance_id: instance.id });
    expect(serializeLicense(v.license, ctx.clock.now(), v.instance).status).toBe('disabled');
    const refused = await failure(activateLicense(ctx, { key: license.key, instance_name: 'x' }));
    expect(refused.code).toBe('license_disabled');
    expect(refused.messages()).toEqual(['key: license key is disabled']);
  });

  it('deactivates once: the slot is freed, a second deactivation is refused and changes nothing', async () => {
    const license = await issue({ activationLimit: 1 });
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    const done = await deactivateLicense(ctx, { key: license.key, instance_id: instance.id });
    expect(done.instance).toMatchObject({ id: instance.id, status: 'deactivated', deactivatedAt: ctx.clock.now() });
    expect(done.license).toMatchObject({ activationCount: 0, status: 'inactive' });
    const again = await failure(deactivateLicense(ctx, { key: license.key, instance_id: instance.id }));
    expect(again.code).toBe('instance_already_deactivated');
    expect(again.messages()).toEqual(['instance_id: instance already deactivated']);
    expect(await activationCountOf(license.id)).toBe(0);
    // The freed slot can be used again.
    const next = await activateLicense(ctx, { key: license.key, instance_name: 'new laptop' });
    expect(next.license).toMatchObject({ activationCount: 1, status: 'active' });
  });

  it('lowers the count once when the same instance is deactivated concurrently', async () => {
    const license = await issue();
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'a' });
    await activateLicense(ctx, { key: license.key, instance_name: 'b' });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => deactivateLicense(ctx, { key: license.key, instance_id: instance.id })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected.map((r) => (r.reason as AppError).code)).toEqual(Array(4).fill('instance_already_deactivated'));
    expect(await activationCountOf(license.id)).toBe(1);
  });

  it('validates input and names the field', async () => {
    const license = await issue();
    const blank = await failure(activateLicense(ctx, { key: license.key, instance_name: '  ' }));
    expect(blank.issues.map((i) => i.path.join('.'))).toEqual(['instance_name']);
    const long = await failure(activateLicense(ctx, { key: license.key, instance_name: 'x'.repeat(201) }));
    expect(long.issues.map((i) => i.path.join('.'))).toEqual(['instance_name']);
    const missing = await failure(deactivateLicense(ctx, { key: license.key }));
    expect(missing.issues.map((i) => i.path.join('.'))).toEqual(['instance_id']);
    expect(await instancesOf(license.id)).toHaveLength(0);
  });

  it('hides keys, licenses and customers of another store or environment (404)', async () => {
    const license = await issue();
    const { instance } = await activateLicense(ctx, { key: license.key, instance_name: 'laptop' });
    const otherStore = await storeContext(db);
    const prodOfSameStore = { ...ctx, mode: 'prod' as const };
    for (const foreign of [otherStore, prodOfSameStore]) {
      expect((await failure(activateLicense(foreign, { key: license.key, instance_name: 'x' }))).code).toBe('not_found');
      expect((await failure(validateLicense(foreign, { key: license.key, instance_id: instance.id }))).code).toBe('not_found');
      expect((await failure(deactivateLicense(foreign, { key: license.key, instance_id: instance.id }))).code).toBe('not_found');
      expect((await failure(listLicenseInstances(foreign, { id: license.id }))).code).toBe('not_found');
      expect((await failure(listCustomerLicenses(foreign, { id: customerId }))).code).toBe('not_found');
    }
    expect(await activationCountOf(license.id)).toBe(1);
  });

  it("pages a customer's licenses and a license's instances, newest first", async () => {
    const customer = await perform(ctx, createCustomerOp, { email: 'pager@example.com' });
    const issued = [];
    for (let i = 0; i < 3; i++) {
      issued.push(
        await inTransaction(ctx, (tx) =>
          issueLicense(tx, { productId, customerId: customer.id, orderId: null, subscriptionId: null, activationLimit: null, expiresInDays: null }),
        ),
      );
    }
    const page1 = await listCustomerLicenses(ctx, { id: customer.id, page_size: '2' });
    expect(page1.items.map((l) => l.id)).toEqual([issued[2]!.id, issued[1]!.id]);
    expect(page1.pagination).toEqual({ total_records: 3, total_pages: 2, current_page: 1, next_page: 2, prev_page: null });
    const page2 = await listCustomerLicenses(ctx, { id: customer.id, page_size: '2', page_number: '2' });
    expect(page2.items.map((l) => l.id)).toEqual([issued[0]!.id]);

    const key = issued[0]!.key;
    const a = await activateLicense(ctx, { key, instance_name: 'a' });
    const b = await activateLicense(ctx, { key, instance_name: 'b' });
    const instances = await listLicenseInstances(ctx, { id: issued[0]!.id });
    expect(instances.items.map((i) => i.id)).toEqual([b.instance.id, a.instance.id]);
    expect(instances.pagination.total_records).toBe(2);
  });
});
