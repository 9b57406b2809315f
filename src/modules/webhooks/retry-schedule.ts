/**
 * Waits between attempts after a failed one: the 2nd attempt comes 30 s after the 1st,
 * the 3rd 1 min after the 2nd, then 5 min, then 1 h; a 5th failure ends the delivery.
 */
export const RETRY_DELAYS_MS = [30_000, 60_000, 300_000, 3_600_000] as const;

/** Attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
