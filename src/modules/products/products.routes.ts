import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeProduct } from './products.serializer.js';
import { archiveProduct, createProduct, getProduct, searchProducts, updateProduct } from './products.service.js';

export function productRoutes(router: Router) {
  router.post('/products', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeProduct(await createProduct(ctx, req.body), ctx.baseUrl));
  });
  router.get('/products/search', async (req, res) => {
    const ctx = requestContext(res);
    const page = await searchProducts(ctx, req.query);
    res.json({ ...page, items: page.items.map((p) => serializeProduct(p, ctx.baseUrl)) });
  });
  router.get('/products/:id', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeProduct(await getProduct(ctx, req.params.id), ctx.baseUrl));
  });
  router.patch('/products/:id', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeProduct(await updateProduct(ctx, req.params.id, req.body), ctx.baseUrl));
  });
  router.delete('/products/:id', async (req, res) => {
    const ctx = requestContext(res);
    res.json(serializeProduct(await archiveProduct(ctx, req.params.id), ctx.baseUrl));
  });
}
