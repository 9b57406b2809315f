import { builder } from '../../graphql/builder.js';
import { apiIdOf } from '../../graphql/input.js';
import { createPortalLink } from './portal.service.js';

builder.mutationFields((t) => ({
  createCustomerPortalLink: t.string({
    description: "A signed link, valid for one hour, to the customer's billing page (subscriptions, orders, license keys)",
    args: { customerId: t.arg.id({ required: true, description: '/v1 id (cust_…) or global id' }) },
    resolve: async (_p, args, ctx) => {
      const { customer_portal_link } = await createPortalLink(ctx.core, { customer_id: apiIdOf(String(args.customerId), 'Customer') });
      return customer_portal_link;
    },
  }),
}));
