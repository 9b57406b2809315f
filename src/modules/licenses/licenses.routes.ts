import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { serializeLicense, serializeLicenseInstance } from './licenses.serializer.js';
import {
  activateLicense,
  deactivateLicense,
  listCustomerLicenses,
  listLicenseInstances,
  validateLicense,
  type LicenseWithInstance,
} from './licenses.service.js';

export function licenseRoutes(router: Router) {
  const render = (r: LicenseWithInstance, now: Date) => serializeLicense(r.license, now, r.instance);
  router.post('/licenses/activate', async (req, res) => {
    const ctx = requestContext(res);
    res.json(render(await activateLicense(ctx, req.body), ctx.clock.now()));
  });
  router.post('/licenses/validate', async (req, res) => {
    const ctx = requestContext(res);
    res.json(render(await validateLicense(ctx, req.body), ctx.clock.now()));
  });
  router.post('/licenses/deactivate', async (req, res) => {
    const ctx = requestContext(res);
    res.json(render(await deactivateLicense(ctx, req.body), ctx.clock.now()));
  });
  router.get('/licenses/:id/instances', async (req, res) => {
    const page = await listLicenseInstances(requestContext(res), { ...req.query, id: req.params.id });
    res.json({ ...page, items: page.items.map(serializeLicenseInstance) });
  });
  router.get('/customers/:id/licenses', async (req, res) => {
    const ctx = requestContext(res);
    const page = await listCustomerLicenses(ctx, { ...req.query, id: req.params.id });
    const now = ctx.clock.now();
    res.json({ ...page, items: page.items.map((l) => serializeLicense(l, now, null)) });
  });
}
