import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router } from 'express';
import { openApiText } from './openapi.js';

/** Swagger UI's files, served from the installed package (nothing is fetched from elsewhere). */
const ASSETS = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Billing service API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/start.js"></script>
</body>
</html>
`;

/** Kept out of the page so the page needs no inline script. */
const START = `window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#reference', deepLinking: true, persistAuthorization: true });\n`;

/**
 * `GET /v1/openapi.json` (no key: the document is public) and, on the test listener, `/docs`:
 * the document rendered by Swagger UI, with "Try it out" against this listener.
 */
export function apiReference(options: { page: boolean }): Router {
  const router = Router();
  router.get('/v1/openapi.json', (_req, res) => {
    res.type('application/json').set('cache-control', 'no-cache').send(openApiText());
  });
  if (!options.page) return router;
  const pageHeaders = {
    'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
  };
  router.get('/docs', (_req, res) => void res.set(pageHeaders).type('html').send(PAGE));
  router.get('/docs/start.js', (_req, res) => void res.type('text/javascript').send(START));
  router.use('/docs/assets', express.static(ASSETS, { index: false, maxAge: '1h' }));
  return router;
}
