/**
 * Waits between attempts after a failed one: the 2nd attempt comes 30 s after the 1st,
 * the 3rd 1 min after the 2nd, then 5 min, then 1 h; a 5th failure ends the delivery.
 */
export const RETRY_DELAYS_MS = [30_000, 60_000, 300_000, 3_600_000] as const;

/** Attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * When the next attempt is due after attempt number `attemptCount` (1-based) failed at
 * `attemptedAt`; null when the schedule is exhausted.
 */
export function nextAttemptAfter(attemptCount: number, attemptedAt: Date): Date | null {
  const delay = RETRY_DELAYS_MS[attemptCount - 1];
  return delay === undefined ? null : new Date(attemptedAt.getTime() + delay);
}
