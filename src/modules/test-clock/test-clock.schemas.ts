import { z } from 'zod';
import { isoDateTime } from '../../lib/schemas.js';

/** Ten years at most per step: far enough for any scenario, short of dates PostgreSQL refuses. */
const MAX_STEP_SECONDS = 10 * 366 * 24 * 3600;

/** POST /v1/test-clock/advance: by `seconds`, or to the instant `to`; never backwards. */
export const advanceTestClockSchema = z
  .strictObject({
    seconds: z.number().int('must be a whole number of seconds').min(1, 'must be at least 1').max(MAX_STEP_SECONDS, `must be at most ${MAX_STEP_SECONDS} (ten years)`).optional(),
    to: isoDateTime.optional(),
  })
  .refine((v) => (v.seconds === undefined) !== (v.to === undefined), { message: 'send either seconds or to', path: ['seconds'] });
export type AdvanceTestClockInput = z.output<typeof advanceTestClockSchema>;

export const getTestClockSchema = z.object({});
