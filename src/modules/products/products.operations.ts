import { defineOperation } from '../../core/operation.js';
import { mapPage } from '../../lib/pagination.js';
import { pageOf } from '../../lib/response-schemas.js';
import { productEntity, serializeProduct } from './products.serializer.js';
import { createProductSchema, productIdSchema, searchProductsSchema, updateProductSchema } from './products.schemas.js';
import { archiveProduct, createProduct, findProductOrThrow, searchProducts, updateProduct, type ProductWithRelations } from './products.service.js';

/** The product operations, as REST (products.routes.ts) and GraphQL (products.graphql.ts) run them. */
const render = (ctx: { baseUrl: string }, p: ProductWithRelations) => serializeProduct(p, ctx.baseUrl);

export const createProductOp = defineOperation({ name: 'products.create', input: createProductSchema, write: true, output: productEntity, run: createProduct, render });

export const getProductOp = defineOperation({ name: 'products.get', input: productIdSchema, write: false, output: productEntity, run: findProductOrThrow, render });

export const searchProductsOp = defineOperation({
  name: 'products.search',
  input: searchProductsSchema,
  write: false,
  output: pageOf(productEntity),
  run: searchProducts,
  render: (ctx, page) => mapPage(page, (p) => render(ctx, p)),
});

export const updateProductOp = defineOperation({ name: 'products.update', input: updateProductSchema, write: true, output: productEntity, run: updateProduct, render });

export const archiveProductOp = defineOperation({ name: 'products.archive', input: productIdSchema, write: true, output: productEntity, run: archiveProduct, render });
