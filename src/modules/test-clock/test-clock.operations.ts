import { defineOperation } from '../../core/operation.js';
import { advanceTestClockSchema, getTestClockSchema } from './test-clock.schemas.js';
import { advanceTestClock, getTestClock } from './test-clock.service.js';
import { serializeTestClock, testClockEntity } from './test-clock.serializer.js';

export const getTestClockOp = defineOperation({
  name: 'testClock.get',
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
  input: advanceTestClockSchema,
  write: 'steps',
  output: testClockEntity,
  run: (ctx, input) => advanceTestClock(ctx, input),
  render: (_ctx, clock) => serializeTestClock(clock),
  idOf: () => null,
});
