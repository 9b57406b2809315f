import express, { type Router } from 'express';
import type { ServiceEnv } from '../context.js';
import { AppError, httpStatusOf } from '../lib/errors.js';
import { serviceSecret } from '../lib/service-secret.js';
import { acceptInvitation, acceptWithNewStore, declineInvitation, invitationLinkValid, invitationView } from '../modules/splits/split-invitations.js';
import type { ApiKeyAuthenticator } from '../modules/stores/api-keys.js';
import { csrfNonce, csrfToken, csrfValid } from './csrf.js';
import { sendMessage, sendPage } from './render.js';
import { signedPages } from './signed-page.js';

const CSRF_SECRET = 'split_invitation_form_key';

/** The page an invitation link opens: the terms, and accept (with a new or an existing store) or decline. */
export function splitInvitationPages(env: ServiceEnv, authenticator: ApiKeyAuthenticator, options: { bodyLimit: string }): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: options.bodyLimit, parameterLimit: 10 });
  const { linked, linkQuery, expiresText } = signedPages(env, {
    valid: invitationLinkValid,
    owner: 'SplitRecipient',
    expired: 'This invitation link is invalid or has expired. Ask the store that invited you for a new one.',
    gone: 'This invitation no longer exists.',
  });

  router.get('/split-invitations/:recipientId', async (req, res) => {
    const { recipientId } = req.params;
    const ctx = await linked(req, res, recipientId);
    if (!ctx) return;
    const view = await invitationView(ctx, recipientId);
    if (!view) return sendMessage(res, 404, 'Not found', 'This invitation no longer exists: the split was deleted.');
    if (view.recipient.inviteStatus !== 'pending') return sendMessage(res, 200, 'Already answered', `This invitation was ${view.recipient.inviteStatus}.`);
    const secret = await serviceSecret(env.data, CSRF_SECRET);
    const nonce = csrfNonce(req, res, env.baseUrl.startsWith('https:'));
    sendPage(res, 200, 'invitation', 'Revenue split invitation', {
      testMode: env.mode === 'test',
      inviter: view.inviter,
      percent: view.percent,
      covers: view.covers,
      expires: expiresText(req),
      acceptAction: `/split-invitations/${recipientId}/accept?${linkQuery(req)}`,
      declineAction: `/split-invitations/${recipientId}/decline?${linkQuery(req)}`,
      acceptCsrf: csrfToken(secret, `split-accept:${recipientId}`, nonce),
      declineCsrf: csrfToken(secret, `split-decline:${recipientId}`, nonce),
    });
  });

  router.post('/split-invitations/:recipientId/accept', form, async (req, res) => {
    const { recipientId } = req.params;
    const ctx = await linked(req, res, recipientId);
    if (!ctx) return;
    const back = { href: `/split-invitations/${recipientId}?${linkQuery(req)}`, label: 'Back to the invitation' };
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(req, await serviceSecret(env.data, CSRF_SECRET), `split-accept:${recipientId}`, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing changed.', back);
    }
    const view = await invitationView(ctx, recipientId);
    if (!view || view.recipient.inviteStatus !== 'pending') return sendMessage(res, 409, 'Already answered', 'This invitation was already answered, or the split was deleted.');
    try {
      const apiKey = typeof body.api_key === 'string' ? body.api_key.trim() : '';
      if (apiKey) {
        const caller = await authenticator.authenticate(apiKey, env.mode);
        await acceptInvitation(ctx, recipientId, caller.storeId);
        return sendMessage(res, 200, 'Invitation accepted', `Your store ${caller.storeId} now receives ${view.percent} % of ${view.covers} of ${view.inviter}.`);
      }
      const name = typeof body.store_name === 'string' ? body.store_name.trim() : '';
      if (!name) return sendMessage(res, 400, 'A name is needed', 'Give your new store a name, or an API key of a store you have.', back);
      // Checked pending above; a store is created only for an invitation that can still be accepted.
      const store = await acceptWithNewStore(ctx, recipientId, name);
      return sendMessage(
        res,
        200,
        'Invitation accepted',
        `Your store ${store.id} now receives ${view.percent} % of ${view.covers} of ${view.inviter}. Its API keys, shown this once: test ${store.test_api_key}, production ${store.prod_api_key}.`,
      );
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      return sendMessage(res, httpStatusOf(err.kind), 'Not accepted', err.messages().join(' '), back);
    }
  });

  router.post('/split-invitations/:recipientId/decline', form, async (req, res) => {
    const { recipientId } = req.params;
    const ctx = await linked(req, res, recipientId);
    if (!ctx) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(req, await serviceSecret(env.data, CSRF_SECRET), `split-decline:${recipientId}`, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing changed.');
    }
    try {
      await declineInvitation(ctx, recipientId);
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      return sendMessage(res, httpStatusOf(err.kind), 'Already answered', err.messages().join(' '));
    }
    return sendMessage(res, 200, 'Invitation declined', 'You will receive nothing from this split. You can close this page.');
  });

  return router;
}
