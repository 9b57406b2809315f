import { defineOperation } from '../../core/operation.js';
import type { RequestContext } from '../../context.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { discountEntity, serializeDiscount } from './discounts.serializer.js';
import { createDiscountSchema, discountIdSchema, retrieveDiscountSchema, searchDiscountsSchema } from './discounts.schemas.js';
import { createDiscount, deleteDiscount, findDiscountOrThrow, searchDiscounts, type DiscountWithProducts } from './discounts.service.js';

/** The discount operations, as REST (discounts.routes.ts) and GraphQL (discounts.graphql.ts) run them. */
const render = (ctx: RequestContext, d: DiscountWithProducts) => serializeDiscount(d, ctx.clock.now());

export const createDiscountOp = defineOperation({ name: 'discounts.create', summary: 'Create a discount', description: 'A `percentage` discount takes `percentage`, a `fixed` one `amount` in minor units and `currency`; `duration_in_months` is required for a `repeating` duration.', input: createDiscountSchema, write: true, output: discountEntity, run: createDiscount, render });

export const retrieveDiscountOp = defineOperation({ name: 'discounts.retrieve', summary: 'Retrieve a discount', description: 'By `discount_id` or by `discount_code` (one of them).', input: retrieveDiscountSchema, write: false, output: discountEntity, run: findDiscountOrThrow, render });

export const searchDiscountsOp = defineOperation({
  name: 'discounts.search',
  summary: 'List discounts',
  description: 'Filter by product, status, type and creation date. Paged by `page_number` and `page_size` (at most 100).',
  input: searchDiscountsSchema,
  write: false,
  output: pageOf(discountEntity),
  run: searchDiscounts,
  render: (ctx, page) => mapPage(page, (d) => render(ctx, d)),
});

export const deleteDiscountOp = defineOperation({ name: 'discounts.delete', summary: 'Delete a discount', description: 'The discount can no longer be redeemed but stays readable by id, and its code stays taken; deleting it again answers the deleted discount.', input: discountIdSchema, write: true, output: discountEntity, run: deleteDiscount, render });
