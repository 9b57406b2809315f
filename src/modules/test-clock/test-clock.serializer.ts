import type { AdvancedTestClock, TestClock } from './test-clock.service.js';

/** `{ object: 'test_clock', now, offset_ms }`, and `ran` after an advance. */
export function serializeTestClock(c: TestClock | AdvancedTestClock) {
  return { object: 'test_clock', now: c.now.toISOString(), offset_ms: c.offsetMs, ...('ran' in c ? { ran: c.ran } : {}) };
}
