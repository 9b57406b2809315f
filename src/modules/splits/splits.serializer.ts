import type { SplitAllocation, SplitRecipient } from '../../generated/prisma/client.js';
import { toWireNumber } from '../../lib/money.js';
import type { SplitWithRecipients } from './splits.service.js';

/** `j***@example.com`: enough for the seller to recognise an invitee, not to read the address. */
export function maskEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

/** A recipient as the client's SplitRecipientEntity: invitees who have not accepted show a masked address. */
export function serializeRecipient(r: SplitRecipient, inviteUrl?: string) {
  const waiting = r.recipientType === 'email';
  return {
    type: 'percentage' as const,
    recipient_type: r.recipientType as 'store' | 'email',
    recipient_reference: waiting ? maskEmail(r.recipientReference) : r.recipientReference,
    amount: Number(r.amount),
    enabled: r.enabled,
    ...(waiting ? { invite_status: r.inviteStatus } : {}),
    // Extension: the link the seller passes on to the invitee (there is no mail server).
    ...(inviteUrl ? { invite_url: inviteUrl } : {}),
  };
}

/** The /v1 SplitEntity; `created_at` in Unix milliseconds, as the spec says. */
export function serializeSplit(s: SplitWithRecipients) {
  return {
    id: s.id,
    mode: s.mode,
    object: 'split',
    store_id: s.storeId,
    ...(s.description ? { description: s.description } : {}),
    type: s.type as 'store' | 'product',
    type_reference: s.typeReference,
    enabled: s.enabled,
    recipients: s.recipients.map((r) => serializeRecipient(r, s.inviteUrls?.get(r.id))),
    created_at: s.createdAt.getTime(),
  };
}

/** A split allocation (this service's extension): a recipient's part of a payment, negative for a refund's reversal. */
export function serializeAllocation(a: SplitAllocation) {
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
