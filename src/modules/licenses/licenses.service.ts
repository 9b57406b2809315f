import { randomBytes } from 'node:crypto';
import type { License, LicenseInstance, Prisma as P } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction } from '../../db/tenant.js';
import { invalidField, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { listing } from '../../db/listing.js';
import { assertCustomerExists } from '../customers/customers.service.js';
import { licenseExpired } from './licenses.rules.js';
import type {
  ActivateLicenseInput,
  DeactivateLicenseInput,
  ListCustomerLicensesInput,
  ListLicenseInstancesInput,
  ValidateLicenseInput,
} from './licenses.schemas.js';

export { licenseWireStatus, type LicenseWireStatus } from './licenses.rules.js';

const DAY_MS = 24 * 60 * 60 * 1000;

type LicenseSelection = { include?: P.LicenseInclude; select?: P.LicenseSelect };

// RFC 4648 base32: no 0/1/8/9, so a buyer typing the key cannot confuse O with 0 or I with 1.
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * 25 symbols of 5 random bits each (125 bits): far beyond guessing, even by someone who
 * can call validate at full speed. 256 is a multiple of 32, so `byte & 31` is unbiased.
 */
export function generateLicenseKey(): string {
  const bytes = randomBytes(25);
  const chars = Array.from(bytes, (b) => BASE32[b & 31]);
  return [0, 5, 10, 15, 20].map((i) => chars.slice(i, i + 5).join('')).join('-');
}

/** The result of activate / validate / deactivate: the license and the instance acted on. */
export interface LicenseWithInstance {
  license: License;
  instance: LicenseInstance;
}

export interface IssueLicenseArgs {
  productId: string;
  customerId: string;
  orderId: string | null;
  subscriptionId: string | null;
  activationLimit: number | null;
  expiresInDays: number | null;
}

/**
 * Issues the license a purchase grants, in the caller's (the checkout's) transaction when
 * there is one. It starts `inactive`: it becomes `active` with its first activation, as the
 * buyer's software sees it.
 */
export async function issueLicense(ctx: RequestContext, args: IssueLicenseArgs): Promise<License> {
  const now = ctx.clock.now();
  return db(ctx).license.create({
    data: {
      id: newId('license'),
      productId: args.productId,
      customerId: args.customerId,
      orderId: args.orderId,
      subscriptionId: args.subscriptionId,
      key: generateLicenseKey(),
      status: 'inactive',
      activationLimit: args.activationLimit,
      activationCount: 0,
      expiresAt: args.expiresInDays == null ? null : new Date(now.getTime() + args.expiresInDays * DAY_MS),
      createdAt: now,
    },
  });
}

/**
 * A key of another store or environment answers exactly like an unknown one, so a key cannot
 * be probed across tenants. The key itself is not echoed: it is a secret.
 */
async function licenseByKeyOrThrow(ctx: RequestContext, key: string): Promise<License> {
  return orNotFound(db(ctx).license.findFirst({ where: { key } }), 'License key');
}

async function instanceOfOrThrow(ctx: RequestContext, license: License, instanceId: string): Promise<LicenseInstance> {
  return orNotFound(db(ctx).licenseInstance.findFirst({ where: { id: instanceId, licenseId: license.id } }), 'License instance', instanceId);
}

/**
 * Registers one more device. The limit holds under concurrent activations because the count
 * is raised by a conditional UPDATE (`activationCount < limit`) in the transaction that
 * inserts the instance: the row lock makes concurrent activations queue, and each re-checks
 * the condition against the committed count before it passes.
 */
export async function activateLicense(ctx: RequestContext, input: ActivateLicenseInput): Promise<LicenseWithInstance> {
  return inTransaction(ctx, async (tx) => {
    const license = await licenseByKeyOrThrow(tx, input.key);
    const now = tx.clock.now();
    if (license.status === 'disabled') throw invalidField(['key'], 'license key is disabled', 'license_disabled');
    if (licenseExpired(license, now)) {
      throw invalidField(['key'], `license key expired on ${license.expiresAt!.toISOString()}`, 'license_expired');
    }
    const limit = license.activationLimit;
    const raised = await db(tx).license.updateMany({
      where: { id: license.id, ...(limit == null ? {} : { activationCount: { lt: limit } }) },
      data: { activationCount: { increment: 1 }, status: 'active' },
    });
    if (raised.count === 0) throw invalidField(['key'], `activation limit of ${limit} reached`, 'activation_limit_reached');
    const instance = await db(tx).licenseInstance.create({
      data: { id: newId('licenseInstance'), licenseId: license.id, name: input.instance_name, status: 'active', createdAt: now },
    });
    const updated = await db(tx).license.findUniqueOrThrow({ where: { id: license.id } });
    return { license: updated, instance };
  });
}

/**
 * Answers whether a device may run. An expired or disabled key still answers 200, with
 * status `expired` / `disabled`: the buyer's software needs to tell "your key ran out" from
 * "no such key" (404), which an error status would blur.
 */
export async function validateLicense(ctx: RequestContext, input: ValidateLicenseInput): Promise<LicenseWithInstance> {
  const license = await licenseByKeyOrThrow(ctx, input.key);
  const instance = await instanceOfOrThrow(ctx, license, input.instance_id);
  return { license, instance };
}

/**
 * Frees the instance's activation slot. Allowed on expired or disabled keys too: freeing a
 * slot grants nothing. Deactivating twice is refused (400) rather than repeated silently, so
 * the count is lowered exactly once per instance; the conditional UPDATE on the instance
 * makes that hold for concurrent calls as well.
 */
export async function deactivateLicense(ctx: RequestContext, input: DeactivateLicenseInput): Promise<LicenseWithInstance> {
  return inTransaction(ctx, async (tx) => {
    const license = await licenseByKeyOrThrow(tx, input.key);
    await instanceOfOrThrow(tx, license, input.instance_id);
    const now = tx.clock.now();
    const flipped = await db(tx).licenseInstance.updateMany({
      where: { id: input.instance_id, licenseId: license.id, status: 'active' },
      data: { status: 'deactivated', deactivatedAt: now },
    });
    if (flipped.count === 0) throw invalidField(['instance_id'], 'instance already deactivated', 'instance_already_deactivated');
    await db(tx).license.update({ where: { id: license.id }, data: { activationCount: { decrement: 1 } } });
    // With no device left the key is back to "issued, not in use"; a disabled key stays
    // disabled. The row is locked by the update above until the transaction ends.
    await db(tx).license.updateMany({ where: { id: license.id, activationCount: 0, status: 'active' }, data: { status: 'inactive' } });
    const updated = await db(tx).license.findUniqueOrThrow({ where: { id: license.id } });
    const instance = await db(tx).licenseInstance.findUniqueOrThrow({ where: { id: input.instance_id } });
    return { license: updated, instance };
  });
}

/** A license with the caller's selection; null when the caller has none such. */
export function findLicense(ctx: RequestContext, input: { id: string }, selection: LicenseSelection = {}) {
  return db(ctx).license.findUnique({ ...selection, where: { id: input.id } });
}

export async function findLicenseOrThrow(ctx: RequestContext, input: { id: string }): Promise<License> {
  return orNotFound(db(ctx).license.findUnique({ where: { id: input.id } }), 'License', input.id);
}

/** A license's activations, newest first, deactivated ones included. */
export function licenseInstanceListing(ctx: RequestContext, licenseId: string) {
  const where: P.LicenseInstanceWhereInput = { licenseId };
  return listing(db(ctx).licenseInstance, where, { id: 'desc' });
}

/** A 404 when the caller has no such license. */
export async function listLicenseInstances(ctx: RequestContext, input: ListLicenseInstancesInput) {
  await findLicenseOrThrow(ctx, input);
  return licenseInstanceListing(ctx, input.id).page(input);
}

/** A customer's license keys, newest first. */
export function customerLicenseListing(ctx: RequestContext, customerId: string) {
  const where: P.LicenseWhereInput = { customerId };
  return listing(db(ctx).license, where, { id: 'desc' });
}

/** A 404 when the caller has no such customer. */
export async function listCustomerLicenses(ctx: RequestContext, input: ListCustomerLicensesInput) {
  await assertCustomerExists(ctx, input.id);
  return customerLicenseListing(ctx, input.id).page(input);
}
