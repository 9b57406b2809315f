import { defineOperation } from '../../core/operation.js';
import { checkoutEntity, serializeCheckout } from './checkouts.serializer.js';
import { createCheckoutSchema, retrieveCheckoutSchema } from './checkouts.schemas.js';
import { createCheckout, findCheckoutOrThrow, type CheckoutWithRelations } from './checkouts.service.js';

const render = (ctx: { baseUrl: string; clock: { now(): Date } }, c: CheckoutWithRelations) => serializeCheckout(c, ctx.baseUrl, ctx.clock.now());

export const createCheckoutOp = defineOperation({ name: 'checkouts.create', input: createCheckoutSchema, write: true, output: checkoutEntity, run: createCheckout, render });
export const retrieveCheckoutOp = defineOperation({ name: 'checkouts.retrieve', input: retrieveCheckoutSchema, write: false, output: checkoutEntity, run: findCheckoutOrThrow, render });
