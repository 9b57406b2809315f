import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { serializeProduct } from './products.serializer.js';
import { createProductSchema, productIdSchema, searchProductsSchema, updateProductSchema } from './products.schemas.js';
import { archiveProduct, createProduct, findProductOrThrow, searchProducts, updateProduct, type ProductWithRelations } from './products.service.js';

/** The product operations, as REST (products.routes.ts) and GraphQL (products.graphql.ts) run them. */
const render = (ctx: { baseUrl: string }, p: ProductWithRelations) => serializeProduct(p, ctx.baseUrl);

export const createProductOp = defineOperation({ name: 'products.create', input: createProductSchema, write: true, run: createProduct, render });

export const getProductOp = defineOperation({ name: 'products.get', input: productIdSchema, write: false, run: findProductOrThrow, render });

export const searchProductsOp = defineOperation({
  name: 'products.search',
  input: searchProductsSchema,
  write: false,
  run: searchProducts,
  render: (ctx, page) => mapPage(page, (p) => render(ctx, p)),
});

export const updateProductOp = defineOperation({ name: 'products.update', input: updateProductSchema, write: true, run: updateProduct, render });

export const archiveProductOp = defineOperation({ name: 'products.archive', input: productIdSchema, write: true, run: archiveProduct, render });
