import type { Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { createApiKey, createStore, listStores, revokeApiKey, type CreatedStore } from '../modules/stores/stores.service.js';

/**
 * The operator's store and key commands, answered alike whether the CLI opens the database
 * itself or asks the running server that holds it (src/admin/channel.ts): the JSON a command
 * prints is the same either way.
 */
export interface StoreCommands {
  createStore(name: string | undefined): Promise<CreatedStore>;
  listStores(): Promise<Awaited<ReturnType<typeof listStores>>>;
  createKey(storeId: string, mode: 'test' | 'prod'): Promise<Awaited<ReturnType<typeof createApiKey>>>;
  revokeKey(keyId: string): Promise<Awaited<ReturnType<typeof revokeApiKey>>>;
  migrate(): Promise<string[]>;
}

/** The commands on an open database. */
export function databaseStoreCommands(db: Database): StoreCommands {
  return {
    createStore: (name) => createStore(db.prisma, { name }),
    listStores: () => listStores(db.prisma),
    createKey: (storeId, mode) => createApiKey(db.prisma, storeId, mode),
    revokeKey: (keyId) => revokeApiKey(db.prisma, keyId, new Date()),
    migrate: () => migrate(db),
  };
}
