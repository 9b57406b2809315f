import { builder } from '../../graphql/builder.js';
import { operationMutation, USER_ERRORS_DESCRIPTION, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import { createPortalLinkOp } from './portal.operations.js';

const CreateCustomerPortalLinkInput = builder.inputType('CreateCustomerPortalLinkInput', {
  description: 'The customer to make a billing-page link for',
  fields: (t) => ({ customerId: t.id({ required: true, description: 'cust_…' }) }),
});

/** The link is not an object to read back: the payload carries the operation's answer. */
const CreateCustomerPortalLinkPayload = builder.objectRef<Payload>('CreateCustomerPortalLinkPayload').implement({
  description: 'The signed link, or the userErrors that refused it',
  fields: (t) => ({
    customerPortalLink: t.string({
      nullable: true,
      description: "A signed link, valid for one hour, to the customer's billing page; null when refused (see userErrors)",
      resolve: (p) => (p.body as { customer_portal_link?: string } | null)?.customer_portal_link ?? null,
    }),
    userErrors: t.field({ type: [UserErrorRef], description: USER_ERRORS_DESCRIPTION, resolve: (p) => p.userErrors }),
  }),
});

operationMutation('createCustomerPortalLink', {
  op: createPortalLinkOp,
  input: CreateCustomerPortalLinkInput,
  payload: CreateCustomerPortalLinkPayload,
  description: "A signed link, valid for one hour, to the customer's billing page (subscriptions, orders, license keys)",
});
