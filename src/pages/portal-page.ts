import express, { type Router } from 'express';
import type { ServiceEnv } from '../context.js';
import { AppError, httpStatusOf } from '../lib/errors.js';
import { serviceSecret } from '../lib/service-secret.js';
import { serializeLicense } from '../modules/licenses/licenses.serializer.js';
import { payWithNewCardFromPortal, portalLinkValid, portalView } from '../modules/portal/portal.service.js';
import { csrfNonce, csrfToken, csrfValid } from './csrf.js';
import { formatMoney } from './money.js';
import { sendMessage, sendPage } from './render.js';
import { signedPages } from './signed-page.js';

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : '—');
const CSRF_SECRET = 'portal_form_key';
/** Subscriptions the customer may give a new card: those still charged, and those a payment would bring back. */
const CARD_STATUSES = new Set(['active', 'trialing', 'past_due', 'unpaid', 'scheduled_cancel']);

/** The customer portal a billing link opens: the customer's subscriptions, orders and license keys, and a new card for a subscription. */
export function portalPages(env: ServiceEnv, options: { bodyLimit: string } = { bodyLimit: '256kb' }): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: options.bodyLimit, parameterLimit: 20 });

  const { linked, linkQuery, expiresText } = signedPages(env, {
    valid: portalLinkValid,
    owner: 'Customer',
    expired: 'This billing link is invalid or has expired. Ask the seller for a new one.',
    gone: 'This customer does not exist.',
  });

  router.get('/portal/:customerId', async (req, res) => {
    const { customerId } = req.params;
    const ctx = await linked(req, res, customerId);
    if (!ctx) return;
    const customer = await portalView(ctx, customerId);
    if (!customer) return sendMessage(res, 404, 'Not found', 'This customer does not exist.');
    const now = ctx.clock.now();
    const secret = await serviceSecret(env.data, CSRF_SECRET);
    const nonce = csrfNonce(req, res, env.baseUrl.startsWith('https:'));
    sendPage(res, 200, 'portal', 'Billing', {
      testMode: env.mode === 'test',
      customer: { email: customer.email },
      expires: expiresText(req),
      subscriptions: customer.subscriptions.map((s) => ({
        product: s.product.name,
        status: s.status,
        periodEnd: day(s.currentPeriodEndDate),
        card: s.paymentMethodLast4 ? `•••• ${s.paymentMethodLast4}` : '—',
        due: s.status === 'past_due' || s.status === 'unpaid',
        cardForm: CARD_STATUSES.has(s.status) ? { action: `/portal/${customerId}/subscriptions/${s.id}/card?${linkQuery(req)}`, csrf: csrfToken(secret, `portal:${s.id}`, nonce) } : null,
      })),
      orders: customer.orders.map((o) => ({ date: day(o.createdAt), product: o.product.name, amount: formatMoney(o.amountPaid, o.currency), status: o.status })),
      licenses: customer.licenses.map((l) => {
        const wire = serializeLicense(l, now, null);
        return { product: l.product.name, key: wire.key, status: wire.status, activations: l.activationLimit === null ? `${wire.activation}` : `${wire.activation} of ${l.activationLimit}` };
      }),
    });
  });

  // A new card for one subscription: what is due is paid with it at once.
  router.post('/portal/:customerId/subscriptions/:subscriptionId/card', form, async (req, res) => {
    const { customerId, subscriptionId } = req.params;
    const ctx = await linked(req, res, customerId);
    if (!ctx) return;
    const back = { href: `/portal/${customerId}?${linkQuery(req)}`, label: 'Back to billing' };
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(req, await serviceSecret(env.data, CSRF_SECRET), `portal:${subscriptionId}`, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing was charged.', back);
    }
    try {
      const outcome = await payWithNewCardFromPortal(ctx, customerId, subscriptionId, { card_number: body.card_number, card_expiry: body.card_expiry, card_cvc: body.card_cvc });
      if (outcome.kind === 'declined') return sendMessage(res, 402, 'Card declined', `${outcome.message} Nothing was charged; try another card.`, back);
      if (outcome.kind === 'paid') return sendMessage(res, 200, 'Payment received', 'Thank you: what was due is paid and your subscription is active. Renewals will use this card.', back);
      return sendMessage(res, 200, 'Card saved', 'Renewals will use this card.', back);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      return sendMessage(res, httpStatusOf(err.kind), 'Please check the card', err.messages().join(' '), back);
    }
  });

  return router;
}
