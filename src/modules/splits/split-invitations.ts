import type { RequestContext } from '../../context.js';
import type { DataScope } from '../../db/tenant.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import type { Mode } from '../../generated/prisma/enums.js';
import { AppError, notFound } from '../../lib/errors.js';
import { signedLinks } from '../../lib/signed-links.js';
import { systemDb } from '../../db/system.js';
import { createStore } from '../stores/stores.service.js';

/**
 * E-mail invitees join a split through a signed link (there is no mail server: the link is
 * returned to the seller, who passes it on). The link names the recipient and expires; its
 * page lets the invitee accept, with a new store or one they hold a key of, or decline. The
 * first acceptance turns the split on.
 */
/** How long an invitation link stays valid. */
export const INVITE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const invitationLinks = signedLinks('split_invitation_key', { path: 'split-invitations', ttlMs: INVITE_TTL_MS });

/** The invitation page's URL for a recipient who has not answered yet. Outside a transaction (the key is read from the database once). */
export const invitationLink = (ctx: RequestContext, recipientId: string) => invitationLinks.url(ctx, recipientId);

export const invitationLinkValid = (scope: DataScope, mode: Mode, now: Date, recipientId: string, expires: string, signature: string) => invitationLinks.valid(scope, mode, now, recipientId, expires, signature);

/** What the invitation page shows: the recipient, its split and the inviting store's name; null when gone. */
export async function invitationView(ctx: RequestContext, recipientId: string) {
  const recipient = await db(ctx).splitRecipient.findUnique({ where: { id: recipientId }, include: { split: true } });
  if (!recipient || recipient.split.deletedAt) return null;
  const store = await db(ctx).store.findUnique({ where: { id: ctx.storeId }, select: { name: true } });
  const product = recipient.split.type === 'product' ? await db(ctx).product.findUnique({ where: { id: recipient.split.typeReference }, select: { name: true } }) : null;
  return { recipient, inviter: store?.name ?? ctx.storeId, covers: product ? `payments for ${product.name}` : 'every payment', percent: Number(recipient.amount) };
}

/**
 * The invitee accepts with a store (new, or one they hold a key of): the recipient becomes that
 * store, enabled, and the split turns on. Only a pending invitation can be answered, once.
 */
export async function acceptInvitation(ctx: RequestContext, recipientId: string, storeId: string): Promise<void> {
  if (storeId === ctx.storeId) throw new AppError('validation_failed', 'The inviting store cannot receive its own split', [{ path: ['api_key'], message: 'belongs to the store that sent the invitation' }]);
  await inTransaction(ctx, async (tx) => {
    const recipient = await db(tx).splitRecipient.findUnique({ where: { id: recipientId }, select: { splitId: true } });
    if (!recipient || !(await lockRow(tx, 'Split', recipient.splitId))) throw notFound('Invitation');
    const current = await db(tx).splitRecipient.findUniqueOrThrow({ where: { id: recipientId }, include: { split: true } });
    if (current.split.deletedAt) throw notFound('Invitation');
    if (current.inviteStatus !== 'pending') throw new AppError('change_in_progress', `This invitation was already ${current.inviteStatus}`);
    await db(tx).splitRecipient.update({ where: { id: recipientId }, data: { recipientType: 'store', recipientReference: storeId, enabled: true, inviteStatus: 'accepted' } });
    await db(tx).split.update({ where: { id: current.splitId }, data: { enabled: true } });
  });
}

/** The invitee declines: the recipient stays out for good; the split is unchanged otherwise. */
export async function declineInvitation(ctx: RequestContext, recipientId: string): Promise<void> {
  const { count } = await db(ctx).splitRecipient.updateMany({ where: { id: recipientId, inviteStatus: 'pending' }, data: { inviteStatus: 'declined' } });
  if (!count) throw new AppError('change_in_progress', 'This invitation was already answered');
}

/**
 * Accepts with a store created for the invitee (stores belong to no tenant, so it is made by
 * the stores service on the service's own client); its keys come back, to be shown once.
 */
export async function acceptWithNewStore(ctx: RequestContext, recipientId: string, name: string) {
  const store = await createStore(systemDb(ctx.data), { name });
  await acceptInvitation(ctx, recipientId, store.id);
  return store;
}

