import { Creem } from 'creem';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { CreatedStore } from '../../src/modules/stores/stores.service.js';
import { api, startTestService, type TestService } from './service.js';

/** The service, a store, its REST caller and the official client: what a billing scenario works with. */
export interface BillingHarness {
  service: TestService;
  store: CreatedStore;
  call: ReturnType<typeof api>;
  client: Creem;
}

/**
 * A service with no background job rounds (only a test clock's advance runs due work, so each
 * step is exact) and a store, new for every test when `storePerTest` (an advance runs all of
 * its store's due work, so scenarios that move the clock each get a clock of their own).
 */
export function billingHarness(storeName: string, options: { storePerTest: boolean }): BillingHarness {
  const h = {} as BillingHarness;
  const newStore = async () => {
    h.store = await h.service.createStore(storeName);
    h.call = api(h.service.testUrl, h.store.test_api_key);
    h.client = new Creem({ apiKey: h.store.test_api_key, serverURL: h.service.testUrl });
  };
  beforeAll(async () => {
    h.service = await startTestService({ env: { JOB_RUNNER: 'off' } });
    if (!options.storePerTest) await newStore();
  });
  afterAll(() => h.service?.close());
  if (options.storePerTest) beforeEach(newStore);
  return h;
}
