import { z } from 'zod';
import { defineOperation } from '../../core/operation.js';
import { createPortalLinkSchema } from './portal.schemas.js';
import { createPortalLink } from './portal.service.js';

/** The client's CustomerLinksEntity: the signed portal link, as the service makes it. */
export const customerLinksEntity = z.object({ customer_portal_link: z.string() }).meta({ id: 'CustomerLinksEntity' });

/**
 * POST /v1/customers/billing and GraphQL createCustomerPortalLink. Not a write: nothing of the
 * store changes (the service's signing key is made on first use, outside any tenant), so a
 * retry simply gets a fresh link and no link is kept in an idempotency record.
 */
export const createPortalLinkOp = defineOperation({
  name: 'portal.create_link',
  summary: 'Create a customer portal link',
  description: "A signed link to the customer's billing page, valid for one hour. Nothing is stored, so a retry simply gets a fresh link.",
  input: createPortalLinkSchema,
  write: false,
  output: customerLinksEntity,
  run: createPortalLink,
  render: (_ctx, r) => r,
});
