import type { Database } from './db/database.js';
import { ReadCache } from './lib/read-cache.js';
import type { ProductWithRelations } from './modules/products/products.service.js';

/** Process-wide caches of hot reads, kept correct by the database's change feed. */
export interface ServiceCaches {
  /** Products by store, environment and id; absent with READ_CACHE=off. */
  products?: ReadCache<ProductWithRelations>;
  /** Each store's test-clock offset (ms), read by every request of the test environment. */
  clocks: ReadCache<number>;
}

/** Channel on which product writes announce the cache key they changed. */
export const PRODUCT_CHANGES = 'product_changed';
/** Channel on which a test clock's advance announces the store whose clock moved. */
export const CLOCK_CHANGES = 'store_clock_changed';

/**
 * The caches of a running service. READ_CACHE=off turns off the cache of API resources
 * (products) only: the clock offsets are part of every test request's context, like the API
 * key lookup, not a read of the API.
 */
export async function startCaches(db: Database, options: { products: boolean }): Promise<{ caches: ServiceCaches; stop(): Promise<void> }> {
  const clocks = new ReadCache<number>();
  const products = options.products ? new ReadCache<ProductWithRelations>() : undefined;
  const stops = await Promise.all([
    db.subscribe(CLOCK_CHANGES, (key) => clocks.invalidate(key), (live) => clocks.setLive(live)),
    ...(products ? [db.subscribe(PRODUCT_CHANGES, (key) => products.invalidate(key), (live) => products.setLive(live))] : []),
  ]);
  return { caches: { products, clocks }, stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
