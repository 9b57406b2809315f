import type { Transaction } from '../../generated/prisma/client.js';

/**
 * Which payment is a subscription's last one. The stored pointer wins; the newest collected
 * payment (the one SUBSCRIPTION_INCLUDE loads) covers rows written before the pointer was
 * set. The transaction itself is known only when the loaded payment is the pointed-to one.
 */
export function lastPayment(s: {
  lastTransactionId: string | null;
  lastTransactionDate: Date | null;
  transactions: Transaction[];
}): { id: string | undefined; transaction: Transaction | undefined; date: Date | undefined } {
  const newest = s.transactions[0];
  const id = s.lastTransactionId ?? newest?.id;
  const transaction = newest && newest.id === id ? newest : undefined;
  return { id, transaction, date: s.lastTransactionDate ?? transaction?.createdAt };
}
