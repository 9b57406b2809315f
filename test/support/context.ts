import type { RequestContext } from '../../src/context.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createStore } from '../../src/modules/stores/stores.service.js';

/** A request context for calling core services directly, as the transports do after authentication. */
export async function storeContext(db: PrismaClient, mode: 'test' | 'prod' = 'test', clock = new ManualClock(Date.UTC(2026, 0, 15, 12))): Promise<RequestContext & { clock: ManualClock }> {
  const store = await createStore(db, { name: 'Service test store' });
  return { db, storeId: store.id, mode, clock, traceId: 'test-trace', source: 'test', baseUrl: 'http://billing.test' };
}
