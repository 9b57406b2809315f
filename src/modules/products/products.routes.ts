import type { Router } from 'express';
import { route, withParams } from '../../rest/operation-route.js';
import { archiveProductOp, createProductOp, getProductOp, searchProductsOp, updateProductOp } from './products.operations.js';

export function productRoutes(router: Router) {
  route(router, 'post', '/products', createProductOp);
  route(router, 'get', '/products/search', searchProductsOp);
  route(router, 'get', '/products/:id', getProductOp, withParams('query'));
  route(router, 'patch', '/products/:id', updateProductOp, withParams('body'));
  route(router, 'delete', '/products/:id', archiveProductOp, withParams('query'));
}
