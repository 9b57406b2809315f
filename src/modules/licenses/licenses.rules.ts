import type { License } from '../../generated/prisma/client.js';
import type { LicenseWireStatus } from './licenses.schemas.js';

export type { LicenseWireStatus } from './licenses.schemas.js';

/** Whether the key has passed its expiry at `now`: from that instant it is `expired` and cannot be activated. */
export function licenseExpired(l: Pick<License, 'expiresAt'>, now: Date): boolean {
  return l.expiresAt !== null && l.expiresAt.getTime() <= now.getTime();
}

/**
 * Status as the buyer's software should see it. Expiry is derived from the clock rather than
 * stored, so a key turns `expired` at its instant without a background job; `disabled` wins
 * because a seller's revocation is final even for a key that would have expired anyway.
 */
export function licenseWireStatus(l: Pick<License, 'status' | 'expiresAt'>, now: Date): LicenseWireStatus {
  if (l.status === 'disabled') return 'disabled';
  if (licenseExpired(l, now)) return 'expired';
  return l.status as LicenseWireStatus;
}
