import express, { type Router } from 'express';
import { contextFor, type ServiceEnv } from '../context.js';
import { affiliateByCode } from '../db/system.js';
import { AppError, httpStatusOf } from '../lib/errors.js';
import { serviceSecret } from '../lib/service-secret.js';
import { acceptAffiliateInvite, affiliateInviteLinkValid, affiliateInviteView, declineAffiliateInvite, normalizeReferralCode, referralLink } from '../modules/affiliates/affiliate-invitations.js';
import { recordReferralVisit } from '../modules/affiliates/referrals.js';
import { withStoreClock } from '../modules/test-clock/test-clock.service.js';
import { CADENCE } from './checkout-page.js';
import { csrfNonce, csrfToken, csrfValid } from './csrf.js';
import { formatMoney } from './money.js';
import { rememberReferral } from './referral-cookie.js';
import { sendMessage, sendPage } from './render.js';
import { signedPages } from './signed-page.js';

const CSRF_SECRET = 'affiliate_invitation_form_key';
const PRODUCT_ID = /^prod_[0-9A-Z]{26}$/;

/**
 * The affiliate's pages: the invitation a signed link opens (join or decline), and the
 * referral link (`/r/{code}`), which counts a click, remembers the code for the store's
 * checkouts and shows the store's products, or goes straight to one (`?product=prod_…`).
 */
export function affiliatePages(env: ServiceEnv, options: { bodyLimit: string }): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: options.bodyLimit, parameterLimit: 10 });
  const secure = env.baseUrl.startsWith('https:');
  const { linked, linkQuery, expiresText } = signedPages(env, {
    valid: affiliateInviteLinkValid,
    owner: 'AffiliateInvite',
    expired: 'This invitation link is invalid or has expired. Ask the store that invited you for a new one.',
    gone: 'This invitation no longer exists.',
  });

  router.get('/affiliate-invitations/:inviteId', async (req, res) => {
    const { inviteId } = req.params;
    const ctx = await linked(req, res, inviteId);
    if (!ctx) return;
    const view = await affiliateInviteView(ctx, inviteId);
    if (!view) return sendMessage(res, 404, 'Not found', 'This invitation no longer exists.');
    if (view.invite.status !== 'pending') return sendMessage(res, 200, 'Already answered', `This invitation was ${view.invite.status}.`);
    const secret = await serviceSecret(env.data, CSRF_SECRET);
    const nonce = csrfNonce(req, res, secure);
    sendPage(res, 200, 'affiliate-invitation', 'Affiliate program invitation', {
      testMode: env.mode === 'test',
      inviter: view.inviter,
      percent: view.percent,
      holdDays: view.holdDays,
      cookieDays: view.cookieDays,
      name: view.invite.name ?? '',
      expires: expiresText(req),
      acceptAction: `/affiliate-invitations/${inviteId}/accept?${linkQuery(req)}`,
      declineAction: `/affiliate-invitations/${inviteId}/decline?${linkQuery(req)}`,
      acceptCsrf: csrfToken(secret, `affiliate-accept:${inviteId}`, nonce),
      declineCsrf: csrfToken(secret, `affiliate-decline:${inviteId}`, nonce),
    });
  });

  router.post('/affiliate-invitations/:inviteId/:answer', form, async (req, res) => {
    const { inviteId, answer } = req.params;
    if (answer !== 'accept' && answer !== 'decline') return sendMessage(res, 404, 'Not found', 'There is no such page.');
    const ctx = await linked(req, res, inviteId);
    if (!ctx) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(req, await serviceSecret(env.data, CSRF_SECRET), `affiliate-${answer}:${inviteId}`, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing changed.', { href: `/affiliate-invitations/${inviteId}?${linkQuery(req)}`, label: 'Back to the invitation' });
    }
    try {
      if (answer === 'decline') {
        await declineAffiliateInvite(ctx, inviteId);
        return sendMessage(res, 200, 'Invitation declined', 'You have not joined the program. You can close this page.');
      }
      const name = typeof body.name === 'string' ? body.name.trim().slice(0, 200) : '';
      const affiliate = await acceptAffiliateInvite(ctx, inviteId, name || null);
      const link = referralLink(env.baseUrl, affiliate.referralCode);
      return sendMessage(res, 200, 'Welcome to the program', `Your referral code is ${affiliate.referralCode}. Share your link, ${link}: what the people it brings buy earns you commission.`, { href: link, label: link });
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      return sendMessage(res, httpStatusOf(err.kind), 'Already answered', err.messages().join(' '));
    }
  });

  router.get('/r/:code', async (req, res) => {
    const code = normalizeReferralCode(req.params.code);
    const affiliate = await affiliateByCode(env.data, code);
    const gone = () => sendMessage(res, 404, 'Link not active', 'This referral link does not belong to an active affiliate.');
    if (!affiliate || affiliate.mode !== env.mode) return gone();
    const ctx = await withStoreClock(contextFor(env, affiliate.storeId, { traceId: res.locals.traceId as string, source: 'page' }));
    const visit = await recordReferralVisit(ctx, affiliate.id);
    if (!visit) return gone();
    rememberReferral(res, affiliate.storeId, code, visit.cookieDays, secure);
    const buy = (productId: string) => `/buy/${productId}?ref=${code}`;
    const product = typeof req.query.product === 'string' ? req.query.product : '';
    if (PRODUCT_ID.test(product)) return res.redirect(303, buy(product));
    sendPage(res, 200, 'referral', visit.storeName, {
      testMode: env.mode === 'test',
      storeName: visit.storeName,
      products: visit.products.map((p) => ({
        name: p.name,
        description: p.description,
        price: formatMoney(p.price, p.currency) + (p.billingType === 'recurring' ? ` ${CADENCE[p.billingPeriod] ?? ''}`.trimEnd() : ''),
        buy: buy(p.id),
      })),
    });
  });

  return router;
}
