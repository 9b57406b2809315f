import { defineOperation } from '../../core/operation.js';
import { checkoutEntity, serializeCheckout } from './checkouts.serializer.js';
import { createCheckoutSchema, retrieveCheckoutSchema } from './checkouts.schemas.js';
import { createCheckout, findCheckoutOrThrow, type CheckoutWithRelations } from './checkouts.service.js';

const render = (ctx: { baseUrl: string; clock: { now(): Date } }, c: CheckoutWithRelations) => serializeCheckout(c, ctx.baseUrl, ctx.clock.now());

export const createCheckoutOp = defineOperation({ name: 'checkouts.create', summary: 'Create a checkout session', description: 'Starts a one-time payment or a subscription for a product and answers the session with the `checkout_url` to send the buyer to. Refused in an environment without a payment processor.', input: createCheckoutSchema, write: true, output: checkoutEntity, run: createCheckout, render });
export const retrieveCheckoutOp = defineOperation({ name: 'checkouts.retrieve', summary: 'Retrieve a checkout session', description: 'A checkout session by `checkout_id`, with its status, customer and order once paid.', input: retrieveCheckoutSchema, write: false, output: checkoutEntity, run: findCheckoutOrThrow, render });
