import { defineOperation } from '../../core/operation.js';
import { advanceTestClockSchema, getTestClockSchema } from './test-clock.schemas.js';
import { advanceTestClock, getTestClock } from './test-clock.service.js';
import { serializeTestClock, testClockEntity } from './test-clock.serializer.js';

export const getTestClockOp = defineOperation({
  name: 'testClock.get',
  summary: "Retrieve the store's test clock",
  description: 'Test environment only.',
  input: getTestClockSchema,
  write: false,
  output: testClockEntity,
  run: (ctx) => getTestClock(ctx),
  render: (_ctx, clock) => serializeTestClock(clock),
  idOf: () => null,
});

/**
 * Not one transaction: the clock moves and commits first, then the due work runs in its own
 * transactions (each renewal charges with no transaction open). With an Idempotency-Key a
 * retry of `{"seconds": N}` gets the first answer instead of moving the clock again.
 */
export const advanceTestClockOp = defineOperation({
  name: 'testClock.advance',
  summary: "Advance the store's test clock",
  description: 'By `seconds` or to the instant `to`, never backwards; the work that became due (renewals, retries, scheduled changes) runs before the answer. Test environment only; with an Idempotency-Key a retry does not move the clock again.',
  input: advanceTestClockSchema,
  write: 'steps',
  output: testClockEntity,
  run: (ctx, input) => advanceTestClock(ctx, input),
  render: (_ctx, clock) => serializeTestClock(clock),
  idOf: () => null,
});
