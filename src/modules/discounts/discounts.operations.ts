import { defineOperation } from '../../core/operation.js';
import type { RequestContext } from '../../context.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { discountEntity, serializeDiscount } from './discounts.serializer.js';
import { createDiscountSchema, discountIdSchema, retrieveDiscountSchema, searchDiscountsSchema } from './discounts.schemas.js';
import { createDiscount, deleteDiscount, findDiscountOrThrow, searchDiscounts, type DiscountWithProducts } from './discounts.service.js';

/** The discount operations, as REST (discounts.routes.ts) and GraphQL (discounts.graphql.ts) run them. */
const render = (ctx: RequestContext, d: DiscountWithProducts) => serializeDiscount(d, ctx.clock.now());

export const createDiscountOp = defineOperation({ name: 'discounts.create', input: createDiscountSchema, write: true, output: discountEntity, run: createDiscount, render });

export const retrieveDiscountOp = defineOperation({ name: 'discounts.retrieve', input: retrieveDiscountSchema, write: false, output: discountEntity, run: findDiscountOrThrow, render });

export const searchDiscountsOp = defineOperation({
  name: 'discounts.search',
  input: searchDiscountsSchema,
  write: false,
  output: pageOf(discountEntity),
  run: searchDiscounts,
  render: (ctx, page) => mapPage(page, (d) => render(ctx, d)),
});

export const deleteDiscountOp = defineOperation({ name: 'discounts.delete', input: discountIdSchema, write: true, output: discountEntity, run: deleteDiscount, render });
