import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { productEntity, serializeProduct } from './products.serializer.js';
import { createProductSchema, productIdSchema, searchProductsSchema, updateProductSchema } from './products.schemas.js';
import { archiveProduct, createProduct, findProductOrThrow, searchProducts, updateProduct, type ProductWithRelations } from './products.service.js';

/** The product operations, as REST (products.routes.ts) and GraphQL (products.graphql.ts) run them. */
const render = (ctx: { baseUrl: string }, p: ProductWithRelations) => serializeProduct(p, ctx.baseUrl);

export const createProductOp = defineOperation({ name: 'products.create', summary: 'Create a product', description: 'A one-time product (free with a price of 0) or a subscription, with its price in minor units, billing period and features.', input: createProductSchema, write: true, output: productEntity, run: createProduct, render });

export const getProductOp = defineOperation({ name: 'products.get', summary: 'Retrieve a product', input: productIdSchema, write: false, output: productEntity, run: findProductOrThrow, render });

export const searchProductsOp = defineOperation({
  name: 'products.search',
  summary: 'List products',
  description: 'Paged by `page_number` and `page_size` (at most 100).',
  input: searchProductsSchema,
  write: false,
  output: pageOf(productEntity),
  run: searchProducts,
  render: (ctx, page) => mapPage(page, (p) => render(ctx, p)),
});

export const updateProductOp = defineOperation({ name: 'products.update', summary: 'Update a product', description: 'Only the fields supplied change; a price change mints a new default price.', input: updateProductSchema, write: true, output: productEntity, run: updateProduct, render });

export const archiveProductOp = defineOperation({ name: 'products.archive', summary: 'Archive a product', description: 'The product stays readable (orders and subscriptions point at it) but can no longer be bought.', input: productIdSchema, write: true, output: productEntity, run: archiveProduct, render });
