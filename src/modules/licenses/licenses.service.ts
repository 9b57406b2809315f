import { randomBytes } from 'node:crypto';
import type { License, LicenseInstance, Prisma } from '../../generated/prisma/client.js';
import { scope, type RequestContext } from '../../context.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { pageWindow, toPage } from '../../lib/pagination.js';
import { parseInput } from '../../lib/validation.js';
import { findCustomer } from '../customers/customers.service.js';
import {
  activateLicenseSchema,
  deactivateLicenseSchema,
  listCustomerLicensesSchema,
  listLicenseInstancesSchema,
  validateLicenseSchema,
} from './licenses.schemas.js';

const DAY_MS = 24 * 60 * 60 * 1000;

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

/**
 * Issues the license a purchase grants, inside the caller's (checkout's) transaction. It
 * starts `inactive`: it becomes `active` with its first activation, as the buyer's software
 * sees it.
 */
export async function issueLicense(
  tx: Prisma.TransactionClient,
  ctx: Pick<RequestContext, 'storeId' | 'mode' | 'clock'>,
  args: {
    productId: string;
    customerId: string;
    orderId: string | null;
    subscriptionId: string | null;
    activationLimit: number | null;
    expiresInDays: number | null;
  },
): Promise<License> {
  const now = ctx.clock.now();
  return tx.license.create({
    data: {
      id: newId('license'),
      ...scope(ctx),
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
async function licenseByKeyOrThrow(db: Prisma.TransactionClient, ctx: RequestContext, key: string): Promise<License> {
  const license = await db.license.findFirst({ where: { key, ...scope(ctx) } });
  if (!license) throw notFound('License key');
  return license;
}

async function instanceOfOrThrow(db: Prisma.TransactionClient, license: License, instanceId: string): Promise<LicenseInstance> {
  const instance = await db.licenseInstance.findFirst({ where: { id: instanceId, licenseId: license.id } });
  if (!instance) throw notFound('License instance', instanceId);
  return instance;
}

const keyRefused = (message: string) => new AppError('bad_request', message, [{ path: ['key'], message }]);

/**
 * Registers one more device. The limit holds under concurrent activations because the count
 * is raised by a conditional UPDATE (`activationCount < limit`) in the transaction that
 * inserts the instance: the row lock makes concurrent activations queue, and each re-checks
 * the condition against the committed count before it passes.
 */
export async function activateLicense(ctx: RequestContext, raw: unknown): Promise<LicenseWithInstance> {
  const input = parseInput(activateLicenseSchema, raw);
  return ctx.db.$transaction(async (tx) => {
    const license = await licenseByKeyOrThrow(tx, ctx, input.key);
    const now = ctx.clock.now();
    if (license.status === 'disabled') throw keyRefused('license key is disabled');
    if (license.expiresAt && license.expiresAt.getTime() <= now.getTime()) {
      throw keyRefused(`license key expired on ${license.expiresAt.toISOString()}`);
    }
    const limit = license.activationLimit;
    const raised = await tx.license.updateMany({
      where: { id: license.id, ...(limit == null ? {} : { activationCount: { lt: limit } }) },
      data: { activationCount: { increment: 1 }, status: 'active' },
    });
    if (raised.count === 0) throw keyRefused(`activation limit of ${limit} reached`);
    const instance = await tx.licenseInstance.create({
      data: { id: newId('licenseInstance'), licenseId: license.id, mode: license.mode, name: input.instance_name, status: 'active', createdAt: now },
    });
    const updated = await tx.license.findUniqueOrThrow({ where: { id: license.id } });
    return { license: updated, instance };
  });
}

/**
 * Answers whether a device may run. An expired or disabled key still answers 200, with
 * status `expired` / `disabled`: the buyer's software needs to tell "your key ran out" from
 * "no such key" (404), which an error status would blur.
 */
export async function validateLicense(ctx: RequestContext, raw: unknown): Promise<LicenseWithInstance> {
  const input = parseInput(validateLicenseSchema, raw);
  const license = await licenseByKeyOrThrow(ctx.db, ctx, input.key);
  const instance = await instanceOfOrThrow(ctx.db, license, input.instance_id);
  return { license, instance };
}

/**
 * Frees the instance's activation slot. Allowed on expired or disabled keys too: freeing a
 * slot grants nothing. Deactivating twice is refused (400) rather than repeated silently, so
 * the count is lowered exactly once per instance; the conditional UPDATE on the instance
 * makes that hold for concurrent calls as well.
 */
export async function deactivateLicense(ctx: RequestContext, raw: unknown): Promise<LicenseWithInstance> {
  const input = parseInput(deactivateLicenseSchema, raw);
  return ctx.db.$transaction(async (tx) => {
    const license = await licenseByKeyOrThrow(tx, ctx, input.key);
    await instanceOfOrThrow(tx, license, input.instance_id);
    const now = ctx.clock.now();
    const flipped = await tx.licenseInstance.updateMany({
      where: { id: input.instance_id, licenseId: license.id, status: 'active' },
      data: { status: 'deactivated', deactivatedAt: now },
    });
    if (flipped.count === 0) {
      throw new AppError('bad_request', 'instance already deactivated', [{ path: ['instance_id'], message: 'instance already deactivated' }]);
    }
    let updated = await tx.license.update({ where: { id: license.id }, data: { activationCount: { decrement: 1 } } });
    // With no device left the key is back to "issued, not in use"; a disabled key stays disabled.
    if (updated.activationCount === 0 && updated.status === 'active') {
      updated = await tx.license.update({ where: { id: license.id }, data: { status: 'inactive' } });
    }
    const instance = await tx.licenseInstance.findUniqueOrThrow({ where: { id: input.instance_id } });
    return { license: updated, instance };
  });
}

export async function findLicenseOrThrow(ctx: RequestContext, id: string): Promise<License> {
  const license = await ctx.db.license.findFirst({ where: { id, ...scope(ctx) } });
  if (!license) throw notFound('License', id);
  return license;
}

export async function listLicenseInstances(ctx: RequestContext, raw: unknown) {
  const input = parseInput(listLicenseInstancesSchema, raw);
  const license = await findLicenseOrThrow(ctx, input.id);
  const where = { licenseId: license.id };
  const [items, total] = await Promise.all([
    ctx.db.licenseInstance.findMany({ where, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.licenseInstance.count({ where }),
  ]);
  return toPage(items, total, input);
}

export async function listCustomerLicenses(ctx: RequestContext, raw: unknown) {
  const input = parseInput(listCustomerLicensesSchema, raw);
  const customer = await findCustomer(ctx, input.id);
  const where = { customerId: customer.id, ...scope(ctx) };
  const [items, total] = await Promise.all([
    ctx.db.license.findMany({ where, orderBy: { id: 'desc' }, ...pageWindow(input) }),
    ctx.db.license.count({ where }),
  ]);
  return toPage(items, total, input);
}
