import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.js';

const cache = new WeakMap<object, Map<string, Buffer>>();

/**
 * A random key the service makes for itself on first use and keeps in the database, so every
 * process on that database signs and checks with the same one (customer-portal links, the
 * checkout form's anti-forgery token). The first writer wins; everyone reads the winner.
 */
export async function serviceSecret(db: PrismaClient, name: string): Promise<Buffer> {
  let perDb = cache.get(db);
  if (!perDb) cache.set(db, (perDb = new Map()));
  const known = perDb.get(name);
  if (known) return known;
  await db.serviceSetting.createMany({ data: [{ key: name, value: randomBytes(32).toString('base64') }], skipDuplicates: true });
  const row = await db.serviceSetting.findUniqueOrThrow({ where: { key: name } });
  const secret = Buffer.from(row.value, 'base64');
  perDb.set(name, secret);
  return secret;
}
