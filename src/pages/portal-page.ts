import express, { type Router } from 'express';
import { contextFor, type ServiceEnv } from '../context.js';
import { storeOwning } from '../db/system.js';
import { withStoreClock } from '../modules/test-clock/test-clock.service.js';
import { serializeLicense } from '../modules/licenses/licenses.serializer.js';
import { portalLinkValid, portalView } from '../modules/portal/portal.service.js';
import { formatMoney } from './money.js';
import { sendMessage, sendPage } from './render.js';

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '—');

/** The customer portal a billing link opens: the customer's subscriptions, orders and license keys. */
export function portalPages(env: ServiceEnv): Router {
  const router = express.Router();
  router.get('/portal/:customerId', async (req, res) => {
    const now = env.clock.now();
    const { customerId } = req.params;
    const valid = await portalLinkValid(env.data, env.mode, now, customerId, String(req.query.expires ?? ''), String(req.query.signature ?? ''));
    if (!valid) return sendMessage(res, 403, 'Link expired', 'This billing link is invalid or has expired. Ask the seller for a new one.');
    // The signed link is the capability: it names the customer, whose store the page then reads as.
    const storeId = await storeOwning(env.data, 'Customer', customerId, env.mode);
    const customer = storeId ? await portalView(await withStoreClock(contextFor(env, storeId, { traceId: res.locals.traceId as string, source: 'page' })), customerId) : null;
    if (!customer) return sendMessage(res, 404, 'Not found', 'This customer does not exist.');
    sendPage(res, 200, 'portal', 'Billing', {
      testMode: env.mode === 'test',
      customer: { email: customer.email },
      expires: new Date(Number(req.query.expires)).toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
      subscriptions: customer.subscriptions.map((s) => ({ product: s.product.name, status: s.status, periodEnd: day(s.currentPeriodEndDate) })),
      orders: customer.orders.map((o) => ({ date: day(o.createdAt), product: o.product.name, amount: formatMoney(o.amountPaid, o.currency), status: o.status })),
      licenses: customer.licenses.map((l) => {
        const wire = serializeLicense(l, now, null);
        return { product: l.product.name, key: wire.key, status: wire.status, activations: l.activationLimit === null ? `${wire.activation}` : `${wire.activation} of ${l.activationLimit}` };
      }),
    });
  });
  return router;
}
