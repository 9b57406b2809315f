import { Prisma, type Split, type SplitRecipient } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { listing, readPage } from '../../db/listing.js';
import { existingStores, incomingAllocations } from '../../db/system.js';
import { db, inTransaction } from '../../db/tenant.js';
import { invitationLink } from './split-invitations.js';
import { invalidField, IssueList, notFound, orNotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { basisPoints, type CreateSplitInput, type ListSplitsInput, type SplitIdInput } from './splits.schemas.js';

/**
 * Revenue splits: a store shares a percentage of its payments (all of them, or one product's)
 * with other stores. Recipients are existing stores, enabled at once, or e-mail invitees, who
 * receive nothing until they accept; a split whose recipients are all invitees waiting starts
 * disabled. A split is the caller's store's, always; another store's is not found.
 */
export type SplitWithRecipients = Split & { recipients: SplitRecipient[]; /** Invitation links of the recipients still pending, by recipient id. */ inviteUrls?: ReadonlyMap<string, string> };

/** The split with an invitation link for each invitee who has not answered (the seller passes them on). */
export async function withInviteLinks(ctx: RequestContext, split: SplitWithRecipients): Promise<SplitWithRecipients> {
  const pending = split.recipients.filter((r) => r.recipientType === 'email' && r.inviteStatus === 'pending');
  if (!pending.length || split.deletedAt) return split;
  return { ...split, inviteUrls: new Map(await Promise.all(pending.map(async (r) => [r.id, await invitationLink(ctx, r.id)] as const))) };
}

const INCLUDE = { recipients: { orderBy: { id: 'asc' } } } as const satisfies Prisma.SplitInclude;

/** Creates the split in one transaction; the invitation links are made after it (they read a service key). */
export async function createSplit(ctx: RequestContext, input: CreateSplitInput): Promise<SplitWithRecipients> {
  const id = await inTransaction(ctx, (tx) => insertSplit(tx, input));
  return withInviteLinks(ctx, await findSplitOrThrow(ctx, { id }));
}

async function insertSplit(ctx: RequestContext, input: CreateSplitInput): Promise<string> {
  const issues = new IssueList();
  if (input.type === 'store' && input.type_reference !== ctx.storeId) {
    issues.add('type_reference', `must be your store's id (${ctx.storeId}) for a store split`);
  }
  if (input.type === 'product' && !(await db(ctx).product.findUnique({ where: { id: input.type_reference }, select: { id: true } }))) {
    issues.add('type_reference', `no product of this store has the id ${input.type_reference}`);
  }
  const storeIds = input.recipients.flatMap((r) => (r.recipient_type === 'store' ? [r.recipient_reference] : []));
  const found = await existingStores(ctx, storeIds);
  input.recipients.forEach((r, i) => {
    if (r.recipient_type !== 'store') return;
    if (r.recipient_reference === ctx.storeId) issues.add(['recipients', i, 'recipient_reference'], 'is your own store: the seller keeps what the recipients do not receive');
    else if (!found.has(r.recipient_reference)) issues.add(['recipients', i, 'recipient_reference'], `no store has the id ${r.recipient_reference}`);
  });
  issues.throwIfAny();
  await assertRoomForShares(ctx, input);

  const id = newId('split');
  // Ids sort by creation time; handing them out in order keeps the recipients in the order sent.
  const recipientIds = input.recipients.map(() => newId('splitRecipient')).sort();
  const enabled = input.recipients.some((r) => r.recipient_type === 'store');
  await db(ctx).split.create({
    data: {
      id,
      type: input.type,
      typeReference: input.type_reference,
      description: input.description ?? null,
      enabled,
      recipients: {
        create: input.recipients.map((r, i) => ({
          id: recipientIds[i]!,
          recipientType: r.recipient_type,
          recipientReference: r.recipient_type === 'email' ? r.recipient_reference.toLowerCase() : r.recipient_reference,
          amount: new Prisma.Decimal(basisPoints(r.amount)).div(100),
          enabled: r.recipient_type === 'store',
          inviteStatus: r.recipient_type === 'store' ? 'accepted' : 'pending',
        })),
      },
    },
  });
  return id;
}

/**
 * A payment's recipients may together take at most 100 % of it: the store's splits apply to
 * every payment, a product's to that product's, so a new store split must leave room under the
 * most shared product, and a new product split under the store splits and that product's.
 */
async function assertRoomForShares(ctx: RequestContext, input: CreateSplitInput): Promise<void> {
  const live = await db(ctx).split.findMany({ where: { deletedAt: null }, include: { recipients: { select: { amount: true } } } });
  const sharesOf = (s: (typeof live)[number]) => s.recipients.reduce((sum, r) => sum + basisPoints(Number(r.amount)), 0);
  const storeWide = live.filter((s) => s.type === 'store').reduce((sum, s) => sum + sharesOf(s), 0);
  const byProduct = new Map<string, number>();
  for (const s of live) if (s.type === 'product') byProduct.set(s.typeReference, (byProduct.get(s.typeReference) ?? 0) + sharesOf(s));
  const taken = input.type === 'store' ? storeWide + Math.max(0, ...byProduct.values()) : storeWide + (byProduct.get(input.type_reference) ?? 0);
  const asked = input.recipients.reduce((sum, r) => sum + basisPoints(r.amount), 0);
  if (taken + asked > 100_00) {
    throw invalidField(['recipients'], `other splits already take ${taken / 100} % of the payments this one covers; its shares may sum to at most ${(100_00 - taken) / 100}`);
  }
}

/** A live split of the caller's store (deleted ones are gone for the API). */
export const findSplitOrThrow = (ctx: RequestContext, input: SplitIdInput) =>
  orNotFound(db(ctx).split.findFirst({ where: { id: input.id, deletedAt: null }, include: INCLUDE }), 'Split', input.id);

export const retrieveSplit = async (ctx: RequestContext, input: SplitIdInput) => withInviteLinks(ctx, await findSplitOrThrow(ctx, input));

/** The store's live splits, newest first (GraphQL reads it as a connection). */
export const splitListing = (ctx: RequestContext) => listing(db(ctx).split, { deletedAt: null }, { id: 'desc' });

export async function listSplits(ctx: RequestContext, input: ListSplitsInput) {
  const page = await splitListing(ctx).page(input, { include: INCLUDE });
  return { ...page, items: await Promise.all((page.items as SplitWithRecipients[]).map((s) => withInviteLinks(ctx, s))) };
}

/**
 * Stops the split for every payment from now on: it is disabled and marked deleted in one
 * statement, and answered as it was left. A deleted split is not found again.
 */
export async function deleteSplit(ctx: RequestContext, input: SplitIdInput): Promise<SplitWithRecipients> {
  const { count } = await db(ctx).split.updateMany({ where: { id: input.id, deletedAt: null }, data: { deletedAt: ctx.clock.now(), enabled: false } });
  if (!count) throw notFound('Split', input.id);
  return orNotFound(db(ctx).split.findUnique({ where: { id: input.id }, include: INCLUDE }), 'Split', input.id);
}

/** Allocations the caller's store receives from other stores' splits, newest first (GraphQL reads it as a connection). */
export const incomingAllocationListing = (ctx: RequestContext) => incomingAllocations(ctx.data, ctx.storeId, ctx.mode);

export const listIncomingAllocations = (ctx: RequestContext, input: ListSplitsInput) => readPage(incomingAllocationListing(ctx), input);

