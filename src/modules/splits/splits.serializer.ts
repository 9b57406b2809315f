import { z } from 'zod';
import type { SplitAllocation, SplitRecipient } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import { modeField, unixMillis, wireAmount } from '../../lib/response-schemas.js';
import { RECIPIENT_TYPES, SPLIT_TYPES } from './splits.schemas.js';
import type { SplitWithRecipients } from './splits.service.js';

/** Unix milliseconds, as the split models write times. */

/** The /v1 SplitRecipientEntity. */
export const splitRecipientEntity = z
  .object({
    type: z.literal('percentage'),
    recipient_type: z.enum(RECIPIENT_TYPES),
    recipient_reference: z.string(),
    amount: z.number().meta({ description: 'Percent of each payment' }),
    enabled: z.boolean(),
    invite_status: z.string().optional().meta({ description: 'Invitees who have not accepted only: pending or declined' }),
    // Extension: an invitee's link while the invitation is pending.
    invite_url: z.string().optional(),
  })
  .meta({ id: 'SplitRecipientEntity' });
export type SplitRecipientEntity = z.infer<typeof splitRecipientEntity>;

/** The /v1 SplitEntity. */
export const splitEntity = z
  .object({
    id: z.string(),
    mode: modeField,
    object: z.literal('split'),
    store_id: z.string(),
    description: z.string().optional(),
    type: z.enum(SPLIT_TYPES),
    type_reference: z.string(),
    enabled: z.boolean(),
    recipients: z.array(splitRecipientEntity),
    created_at: unixMillis,
  })
  .meta({ id: 'SplitEntity' });
export type SplitEntity = z.infer<typeof splitEntity>;

/** A split allocation (this service's extension). */
export const splitAllocationEntity = z
  .object({
    id: z.string(),
    object: z.literal('split_allocation'),
    mode: modeField,
    payer_store_id: z.string(),
    recipient_store_id: z.string(),
    split_id: z.string(),
    transaction_id: z.string(),
    refund_id: z.string().nullable(),
    amount: wireAmount.meta({ description: "Minor units (cents); negative for a refund's reversal" }),
    currency: z.string(),
    created_at: unixMillis,
  })
  .meta({ id: 'SplitAllocationEntity' });
export type SplitAllocationEntity = z.infer<typeof splitAllocationEntity>;

/** `j***@example.com`: enough for the seller to recognise an invitee, not to read the address. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/** A recipient as the client's SplitRecipientEntity: invitees who have not accepted show a masked address. */
export function serializeRecipient(r: SplitRecipient, inviteUrl?: string): SplitRecipientEntity {
  const waiting = r.recipientType === 'email';
  return {
    type: 'percentage' as const,
    recipient_type: r.recipientType as SplitRecipientEntity['recipient_type'],
    recipient_reference: waiting ? maskEmail(r.recipientReference) : r.recipientReference,
    amount: Number(r.amount),
    enabled: r.enabled,
    ...(waiting ? { invite_status: r.inviteStatus } : {}),
    // Extension: the link the seller passes on to the invitee (there is no mail server).
    ...(inviteUrl ? { invite_url: inviteUrl } : {}),
  };
}

/** The /v1 SplitEntity; `created_at` in Unix milliseconds, as the spec says. */
export function serializeSplit(s: SplitWithRecipients): SplitEntity {
  return {
    id: s.id,
    mode: s.mode,
    object: 'split',
    store_id: s.storeId,
    ...(s.description ? { description: s.description } : {}),
    type: s.type as SplitEntity['type'],
    type_reference: s.typeReference,
    enabled: s.enabled,
    recipients: s.recipients.map((r) => serializeRecipient(r, s.inviteUrls?.get(r.id))),
    created_at: s.createdAt.getTime(),
  };
}

/** A split allocation (this service's extension): a recipient's part of a payment, negative for a refund's reversal. */
export function serializeAllocation(a: SplitAllocation): SplitAllocationEntity {
  return {
    id: a.id,
    object: 'split_allocation',
    mode: a.mode,
    payer_store_id: a.storeId,
    recipient_store_id: a.recipientStoreId,
    split_id: a.splitId,
    transaction_id: a.transactionId,
    refund_id: a.refundId,
    amount: toWireNumber(a.amount),
    currency: a.currency,
    created_at: a.createdAt.getTime(),
  };
}
