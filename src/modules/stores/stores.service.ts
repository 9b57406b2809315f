import { z } from 'zod';
import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { lockStoreCreation } from '../../db/system.js';
import { db } from '../../db/tenant.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { parseInput } from '../../lib/validation.js';
import { issueApiKey } from './api-keys.js';

export const createStoreSchema = z.object({ name: z.string().trim().min(1).max(200) });

export interface CreatedStore {
  id: string;
  name: string;
  created_at: string;
  test_api_key: string;
  prod_api_key: string;
}

/** The caller's own store (the tenant-bound client shows no other). */
export function findOwnStore(ctx: RequestContext, selection: { include?: Prisma.StoreInclude; select?: Prisma.StoreSelect } = {}) {
  return db(ctx).store.findUniqueOrThrow({ ...selection, where: { id: ctx.storeId } });
}

/**
 * A store with one key per environment. Operator action (CLI): stores and keys belong to no
 * tenant, so this takes the database itself (src/db/system.ts), not a request context.
 */
export async function createStore(db: PrismaClient, raw: unknown): Promise<CreatedStore> {
  const input = parseInput(createStoreSchema, raw);
  return db.$transaction((tx) => insertStore(tx, input.name));
}

async function insertStore(tx: Prisma.TransactionClient, name: string): Promise<CreatedStore> {
  const store = await tx.store.create({ data: { id: newId('store'), name } });
  const test = await issueApiKey(tx, store.id, 'test');
  const prod = await issueApiKey(tx, store.id, 'prod');
  return { id: store.id, name: store.name, created_at: store.createdAt.toISOString(), test_api_key: test.key, prod_api_key: prod.key };
}

export const DEFAULT_STORE_NAME = 'Default store';

/**
 * The first start's store: created only when the service has no store at all, so its keys
 * can be shown once. Several processes starting at once on one PostgreSQL database create
 * one between them (the check and the insert hold a transaction-scoped advisory lock).
 */
export async function createDefaultStore(db: PrismaClient): Promise<CreatedStore | null> {
  return db.$transaction(async (tx) => {
    await lockStoreCreation(tx);
    if ((await tx.store.count()) > 0) return null;
    return insertStore(tx, DEFAULT_STORE_NAME);
  });
}

export async function listStores(db: PrismaClient) {
  const stores = await db.store.findMany({ orderBy: { id: 'asc' }, include: { apiKeys: true } });
  return stores.map((s) => ({
    id: s.id,
    name: s.name,
    created_at: s.createdAt.toISOString(),
    keys: s.apiKeys.map((k) => ({ id: k.id, mode: k.mode, prefix: k.prefix, revoked: k.revokedAt !== null })),
  }));
}

export async function createApiKey(db: PrismaClient, storeId: string, mode: 'test' | 'prod') {
  const store = await db.store.findUnique({ where: { id: storeId } });
  if (!store) throw new AppError('not_found', `Store ${storeId} not found`);
  return issueApiKey(db, storeId, mode);
}

export async function revokeApiKey(db: PrismaClient, keyId: string, now: Date) {
  const key = await db.apiKey.findUnique({ where: { id: keyId } });
  if (!key) throw new AppError('not_found', `API key ${keyId} not found`);
  await db.apiKey.update({ where: { id: keyId }, data: { revokedAt: key.revokedAt ?? now } });
  return { id: key.id, revoked: true };
}
