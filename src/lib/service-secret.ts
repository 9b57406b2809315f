import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';
import { serviceSettings, type DataScope } from '../db/tenant.js';
import { systemDb } from '../db/system.js';

const cache = new WeakMap<PrismaClient, Map<string, Buffer>>();

/**
 * A random key the service makes for itself on first use and keeps in the database, so every
 * process on that database signs and checks with the same one (customer-portal links, the
 * checkout form's anti-forgery token). The first writer wins; everyone reads the winner.
 */
export async function serviceSecret(scope: DataScope, name: string): Promise<Buffer> {
  const db = systemDb(scope);
  let perDb = cache.get(db);
  if (!perDb) cache.set(db, (perDb = new Map()));
  const known = perDb.get(name);
  if (known) return known;
  const settings = serviceSettings(scope);
  await settings.createMany({ data: [{ key: name, value: randomBytes(32).toString('base64') }], skipDuplicates: true });
  const row = await settings.findUniqueOrThrow({ where: { key: name } });
  const secret = Buffer.from(row.value, 'base64');
  perDb.set(name, secret);
  return secret;
}
