import { builder } from '../../graphql/builder.js';
import { operationMutation, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import { createPortalLinkOp } from './portal.operations.js';

const CreateCustomerPortalLinkInput = builder.inputType('CreateCustomerPortalLinkInput', {
  fields: (t) => ({ customerId: t.id({ required: true, description: 'cust_…' }) }),
});

/** The link is not an object to read back: the payload carries the operation's answer. */
const CreateCustomerPortalLinkPayload = builder.objectRef<Payload>('CreateCustomerPortalLinkPayload').implement({
  fields: (t) => ({
    customerPortalLink: t.string({
      nullable: true,
      description: "A signed link, valid for one hour, to the customer's billing page; null when refused (see userErrors)",
      resolve: (p) => (p.body as { customer_portal_link?: string } | null)?.customer_portal_link ?? null,
    }),
    userErrors: t.field({ type: [UserErrorRef], resolve: (p) => p.userErrors }),
  }),
});

operationMutation('createCustomerPortalLink', {
  op: createPortalLinkOp,
  input: CreateCustomerPortalLinkInput,
  payload: CreateCustomerPortalLinkPayload,
  description: "A signed link, valid for one hour, to the customer's billing page (subscriptions, orders, license keys)",
});
