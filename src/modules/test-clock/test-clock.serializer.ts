import { z } from 'zod';
import { isoTimestamp } from '../../lib/response-schemas.js';
import type { AdvancedTestClock, TestClock } from './test-clock.service.js';

/** A store's test clock; `ran` only in the answer of an advance. */
export const testClockEntity = z
  .object({
    object: z.literal('test_clock'),
    now: isoTimestamp,
    offset_ms: z.number().int().meta({ description: 'How far the clock is ahead of real time, in milliseconds' }),
    ran: z.record(z.string(), z.number().int()).meta({ description: 'Work that became due and ran, by kind (`subscription.renew`: 3)' }).optional(),
  })
  .meta({ id: 'TestClock' });
export type TestClockEntity = z.infer<typeof testClockEntity>;

/** `{ object: 'test_clock', now, offset_ms }`, and `ran` after an advance. */
export function serializeTestClock(c: TestClock | AdvancedTestClock): TestClockEntity {
  return { object: 'test_clock', now: c.now.toISOString(), offset_ms: c.offsetMs, ...('ran' in c ? { ran: c.ran } : {}) };
}
