import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../support/service.js';

let service: TestService;
let rest: ReturnType<typeof api>;

beforeAll(async () => {
  service = await startTestService();
  rest = api(service.testUrl, (await service.createStore('Acme')).test_api_key);
});
afterAll(() => service?.close());

it('a retried endpoint creation replays the endpoint but never stores or replays the signing secret', async () => {
  const body = { url: 'https://hooks.example.com/billing', events: ['checkout.completed'] };
  const first = await rest('POST', '/v1/webhooks', body, { 'idempotency-key': 'create-hook-1' });
  expect(first.status).toBe(200);
  expect(first.json.secret).toMatch(/^whsec_/);
  const replay = await rest('POST', '/v1/webhooks', body, { 'idempotency-key': 'create-hook-1' });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.json.id).toBe(first.json.id);
  expect(replay.json.secret).toBeUndefined();
  // The key's record holds the first answer (the endpoint) without the secret.
  const records = await service.db.prisma.idempotencyRecord.findMany();
  expect(records).toHaveLength(1);
  expect(records[0]!.outcome).toMatchObject({ ok: true, id: first.json.id, body: { id: first.json.id, object: 'webhook' } });
  expect(records[0]!.outcome).not.toHaveProperty('body.secret');
  expect(JSON.stringify(records)).not.toContain(first.json.secret.slice('whsec_'.length));
  expect((await rest('GET', `/v1/webhooks/${first.json.id}/secret`)).json.secret).toBe(first.json.secret);
  expect(await service.db.prisma.webhookEndpoint.count()).toBe(1);
});
