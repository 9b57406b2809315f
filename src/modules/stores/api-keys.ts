import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { randomBase62, sha256Hex } from '../../lib/secrets.js';
import type { DataScope } from '../../db/tenant.js';
import { systemDb } from '../../db/system.js';

/** Keys carry their environment in the prefix so a person can tell them apart at a glance. */
const KEY_PREFIX: Record<Mode, string> = { test: 'sk_test_', prod: 'sk_prod_' };

export interface IssuedKey {
  id: string;
  mode: Mode;
  /** The full key: shown once, never stored. */
  key: string;
}

export async function issueApiKey(db: Pick<PrismaClient, 'apiKey'>, storeId: string, mode: Mode): Promise<IssuedKey> {
  const key = KEY_PREFIX[mode] + randomBase62(40);
  const id = newId('apiKey');
  await db.apiKey.create({ data: { id, storeId, mode, prefix: key.slice(0, 14), hash: sha256Hex(key) } });
  return { id, mode, key };
}

export interface Caller {
  storeId: string;
  mode: Mode;
  /** The key's id: checkouts remember which key created them, to sign their success redirect with it. */
  apiKeyId: string;
}

interface CachedKey {
  caller: Caller | null;
  expires: number;
}

/**
 * Resolves an `x-api-key` to its store. Answers are cached for a few seconds because every
 * request authenticates and the hash lookup would otherwise double the database round trips
 * of a simple read; a revoked key stops working within CACHE_MS.
 */
export class ApiKeyAuthenticator {
  private static readonly CACHE_MS = 5_000;
  private static readonly CACHE_MAX = 10_000;
  private readonly cache = new Map<string, CachedKey>();

  constructor(private readonly db: Pick<PrismaClient, 'apiKey'>) {}

  /** Throws 401 for a missing key and 403 for an unknown, revoked or other-environment key. */
  async authenticate(rawKey: string | undefined, listenerMode: Mode): Promise<Caller> {
    if (!rawKey) throw new AppError('unauthenticated', 'Missing API key: send it in the x-api-key header');
    const caller = await this.lookup(rawKey);
    if (!caller) throw new AppError('forbidden', 'Invalid API key');
    if (caller.mode !== listenerMode) {
      throw new AppError(
        'forbidden',
        `This is a ${caller.mode} API key; it works only against the ${caller.mode} address, not the ${listenerMode} one`,
      );
    }
    return caller;
  }

  private async lookup(rawKey: string): Promise<Caller | null> {
    const hash = sha256Hex(rawKey);
    const now = Date.now();
    const hit = this.cache.get(hash);
    if (hit && hit.expires > now) return hit.caller;
    const row = await this.db.apiKey.findUnique({ where: { hash }, select: { id: true, storeId: true, mode: true, revokedAt: true } });
    const caller = row && !row.revokedAt ? { storeId: row.storeId, mode: row.mode, apiKeyId: row.id } : null;
    if (this.cache.size >= ApiKeyAuthenticator.CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { caller, expires: now + ApiKeyAuthenticator.CACHE_MS });
    return caller;
  }

  /** Drops a key from the cache at once (a key revoked through this process: no five seconds' grace). */
  forget(apiKeyId: string): void {
    for (const [hash, entry] of this.cache) if (entry.caller?.apiKeyId === apiKeyId) this.cache.delete(hash);
  }
}

/**
 * The hash of the key that signs a checkout's success redirect: the key that created the
 * checkout; for a checkout opened from a product_url (no key), or when that key has since been
 * revoked, the newest active key of the store in that environment.
 */
export async function redirectSigningKeyHash(scope: DataScope, of: { storeId: string; mode: Mode; apiKeyId: string | null }): Promise<string | null> {
  // Every completed purchase signs its redirect: answers are kept as briefly as the API key
  // lookups are (a key revoked a moment ago may still sign for REDIRECT_KEY_CACHE_MS).
  const cacheKey = `${of.storeId}\u0000${of.mode}\u0000${of.apiKeyId ?? ''}`;
  const now = Date.now();
  const hit = redirectKeys.get(cacheKey);
  if (hit && hit.expires > now) return hit.hash;
  const hash = await lookUpRedirectSigningKeyHash(scope, of);
  if (redirectKeys.size >= 10_000) redirectKeys.clear();
  redirectKeys.set(cacheKey, { hash, expires: now + REDIRECT_KEY_CACHE_MS });
  return hash;
}

const REDIRECT_KEY_CACHE_MS = 5_000;
const redirectKeys = new Map<string, { hash: string | null; expires: number }>();

async function lookUpRedirectSigningKeyHash(scope: DataScope, of: { storeId: string; mode: Mode; apiKeyId: string | null }): Promise<string | null> {
  const keys = systemDb(scope).apiKey;
  if (of.apiKeyId) {
    const key = await keys.findUnique({ where: { id: of.apiKeyId }, select: { hash: true, revokedAt: true } });
    if (key && !key.revokedAt) return key.hash;
  }
  const newest = await keys.findFirst({
    where: { storeId: of.storeId, mode: of.mode, revokedAt: null },
    orderBy: { createdAt: 'desc' },
    select: { hash: true },
  });
  return newest?.hash ?? null;
}
