import type { Database } from './db/database.js';
import { ReadCache } from './lib/read-cache.js';
import type { ProductWithRelations } from './modules/products/products.service.js';

/** Process-wide caches of hot reads, kept correct by the database's change feed. */
export interface ServiceCaches {
  products: ReadCache<ProductWithRelations>;
}

/** Channel on which product writes announce the cache key they changed. */
export const PRODUCT_CHANGES = 'product_changed';

export async function startCaches(db: Database): Promise<{ caches: ServiceCaches; stop(): Promise<void> }> {
  const products = new ReadCache<ProductWithRelations>();
  const stop = await db.subscribe(PRODUCT_CHANGES, (key) => products.invalidate(key), (live) => products.setLive(live));
  return { caches: { products }, stop };
}
