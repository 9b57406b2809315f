import { afterAll, beforeAll, expect } from 'vitest';
import type { CreatedStore } from '../../src/modules/stores/stores.service.js';
import { makeCustomer } from './factories.js';
import { api, startTestService, type TestService } from './service.js';

/** A service, a store with a customer, and the calls credits tests make: what each credits test file starts from. */
export function creditsFixture() {
  const f = {} as { service: TestService; store: CreatedStore; call: ReturnType<typeof api>; customerId: string; statements: number };
  let n = 0;
  f.statements = 0;
  beforeAll(async () => {
    // Statements the database saw (the job runner's rounds aside), for tests that check a
    // query's count does not grow with the data.
    f.service = await startTestService({ onStatement: (sql) => void (/"(Job|WebhookDelivery)"/.test(sql) || f.statements++) });
    f.store = await f.service.createStore('Credits');
    f.call = api(f.service.testUrl, f.store.test_api_key);
    f.customerId = (await makeCustomer(f.service.contextOf(f.store), { email: 'credits@example.com' })).id;
  });
  afterAll(() => f.service?.close());
  return Object.assign(f, {
    /** A fresh idempotency key. */
    key: () => `key-${++n}-${Date.now()}`,
    /** An account of the customer, through the API; `unit` decides which store counter-accounts it shares. */
    async account(name: string, initial?: string, unit = 'tokens') {
      const res = await f.call('POST', '/v1/customer-credits/accounts', { customer_id: f.customerId, name, unit_label: unit, ...(initial ? { initial_balance: initial } : {}) });
      expect(res.status, res.text).toBe(201);
      return res.json.id as string;
    },
    async balance(id: string) {
      return (await f.call('GET', `/v1/customer-credits/accounts/${id}/balance`)).json.balance as string;
    },
  });
}
