import { z } from 'zod';
import { resourceId } from '../../lib/schemas.js';
import { cardExpiry, cardNumber } from '../checkouts/checkouts.schemas.js';

/** POST /v1/customers/billing (and GraphQL createCustomerPortalLink): the customer the link is for. */
export const createPortalLinkSchema = z.strictObject({ customer_id: resourceId });
export type CreatePortalLinkInput = z.infer<typeof createPortalLinkSchema>;

/** A new card entered on the portal page. */
export const portalCardSchema = z.object({
  card_number: cardNumber,
  card_expiry: cardExpiry,
  card_cvc: z.string().trim().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
});
