import { z } from 'zod';
import { resourceId } from '../../lib/schemas.js';

/** POST /v1/customers/billing (and GraphQL createCustomerPortalLink): the customer the link is for. */
export const createPortalLinkSchema = z.strictObject({ customer_id: resourceId });
export type CreatePortalLinkInput = z.infer<typeof createPortalLinkSchema>;
