import type { Discount } from '../../generated/prisma/client.js';
import type { DiscountStatus } from './discounts.schemas.js';

/**
 * Status is derived at read time: expiry is a point in time, so storing `expired` would need a
 * sweeper and would be wrong between sweeps. The list filters of the service follow the same
 * rule (see `statusFilter` in discounts.service.ts).
 */
export function discountStatus(d: Pick<Discount, 'status' | 'expiryDate'>, now: Date): DiscountStatus {
  if (d.status === 'deleted') return 'deleted';
  if (d.expiryDate && d.expiryDate.getTime() <= now.getTime()) return 'expired';
  return 'active';
}
