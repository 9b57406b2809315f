import { parseWebhookEventEntity } from 'creem/webhooks.js';
import { expect } from 'vitest';
import { generateSigningSecret, signDelivery } from '../../src/modules/webhooks/signing.js';
import type { TestDatabase } from './database.js';

/**
 * Every event recorded in `db`, delivered as the worker would sign it, parses with the official
 * client's strict event models; `expected` types must be among them (so the check is not vacuous).
 */
export async function expectEventsParse(db: TestDatabase, expected: string[]): Promise<void> {
  const events = await db.prisma.event.findMany();
  const types = new Set(events.map((e) => e.type));
  for (const t of expected) expect(types, `no ${t} event was recorded`).toContain(t);
  for (const event of events) {
    const { body } = signDelivery({ id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload }, generateSigningSecret(), new Date());
    expect(() => parseWebhookEventEntity(body), `${event.type}: ${body.slice(0, 300)}`).not.toThrow();
  }
}
