import { sharePaidTransaction } from '../payments/payment-shares.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, lockRow, updateRows } from '../../db/tenant.js';
import type { JobHandler } from '../../jobs/scheduled-jobs.js';
import { AppError, invalidField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordEvent } from '../events/events.service.js';
import { paymentProcessorFor, type ChargeResult } from '../payments/processor.js';
import type { SetAutoRechargeInput } from './credits.schemas.js';
import { findAccountOrThrow, postAgainstStore } from './credits.service.js';
import { AUTO_RECHARGE_JOB } from './ledger.js';

/**
 * Auto-recharge: an account may carry a rule (threshold, amount, the one-time product whose
 * price pays for it). A debit that leaves the balance below the threshold schedules a job (one
 * per account, however many debits), which buys the amount off-session with the customer's
 * saved card in the three steps every charge takes (a pending payment, the charge with a key
 * made from it, then the outcome), and grants it through the ledger with `credits.granted`
 * and `credits.auto_recharged`.
 */

export async function setAutoRecharge(ctx: RequestContext, input: SetAutoRechargeInput) {
  if (!(await lockRow(ctx, 'CreditAccount', input.id))) throw notFound('Account', input.id);
  await findAccountOrThrow(ctx, input.id);
  const product = await db(ctx).product.findUnique({ where: { id: input.product_id } });
  if (!product) throw new AppError('not_found', `Product ${input.product_id} not found`, [{ path: ['product_id'], message: `no product ${input.product_id} in this store and environment` }]);
  if (product.billingType !== 'onetime' || product.status !== 'active' || product.price <= 0n) {
    throw invalidField(['product_id'], 'must be an active one-time product with a price: its price is what each recharge charges');
  }
  await updateRows(ctx, 'CreditAccount', [{ id: input.id, rechargeThreshold: input.threshold, rechargeAmount: input.amount, rechargeProductId: input.product_id }]);
  return findAccountOrThrow(ctx, input.id);
}

export async function clearAutoRecharge(ctx: RequestContext, id: string) {
  if (!(await lockRow(ctx, 'CreditAccount', id))) throw notFound('Account', id);
  await findAccountOrThrow(ctx, id);
  await updateRows(ctx, 'CreditAccount', [{ id, rechargeThreshold: null, rechargeAmount: null, rechargeProductId: null }]);
  return findAccountOrThrow(ctx, id);
}

type Started = { transactionId: string; amount: bigint; currency: string; paymentMethod: string };

/** Step 1, under the account's lock: is a recharge due, and the pending payment that records it. */
async function startRecharge(ctx: RequestContext, accountId: string): Promise<Started | null> {
  if (!(await lockRow(ctx, 'CreditAccount', accountId))) return null;
  const account = await db(ctx).creditAccount.findUniqueOrThrow({ where: { id: accountId } });
  const pending = await db(ctx).transaction.findFirst({ where: { rechargeAccountId: accountId, status: 'pending' } });
  const method = async () =>
    (await db(ctx).subscription.findFirst({ where: { customerId: account.customerId!, paymentMethodToken: { not: null } }, orderBy: { createdAt: 'desc' }, select: { paymentMethodToken: true } }))?.paymentMethodToken ?? null;
  // A payment left pending by a worker that died: asked again with the same key.
  if (pending) {
    const token = await method();
    return token ? { transactionId: pending.id, amount: pending.amount, currency: pending.currency, paymentMethod: token } : null;
  }
  const due = account.status === 'active' && account.rechargeThreshold !== null && account.rechargeAmount !== null && account.balance < account.rechargeThreshold;
  if (!due || !account.rechargeProductId) return null;
  const product = await db(ctx).product.findUnique({ where: { id: account.rechargeProductId } });
  const token = await method();
  // No card on file or no product to price it: nothing can be charged; the rule stays for later.
  if (!product || product.status !== 'active' || !token) return null;
  const t = await db(ctx).transaction.create({
    data: {
      id: newId('transaction'),
      customerId: account.customerId!,
      rechargeAccountId: accountId,
      amount: product.price,
      currency: product.currency,
      type: 'payment',
      status: 'pending',
      description: `Auto-recharge: ${account.rechargeAmount} ${account.unitLabel}`,
      createdAt: ctx.clock.now(),
    },
  });
  return { transactionId: t.id, amount: t.amount, currency: t.currency, paymentMethod: token };
}

/** Step 3, under the lock again: record the outcome once; paid, grant the credits. */
async function finishRecharge(ctx: RequestContext, accountId: string, started: Started, result: ChargeResult): Promise<void> {
  await lockRow(ctx, 'CreditAccount', accountId);
  const settled = await db(ctx).transaction.updateMany({
    where: { id: started.transactionId, status: 'pending' },
    data: result.status === 'succeeded' ? { status: 'paid', amountPaid: started.amount, processorReference: result.reference } : { status: 'declined', declineCode: result.code },
  });
  if (settled.count === 0 || result.status !== 'succeeded') return;
  const account = await db(ctx).creditAccount.findUniqueOrThrow({ where: { id: accountId } });
  // A top-up is the customer's own, not a referred sale: no affiliate earns on it.
  await sharePaidTransaction(ctx, started.transactionId, account.rechargeProductId, null);
  const amount = account.rechargeAmount;
  if (!amount) return;
  const key = `recharge:${started.transactionId}`;
  const transaction = await postAgainstStore(ctx, account, 'credit', amount, { reference: started.transactionId, idempotencyKey: key, requestHash: key, accountPath: ['id'], amountPath: ['amount'] });
  await recordEvent(ctx, 'credits.auto_recharged', {
    id: transaction.id,
    object: 'customer_credits_auto_recharge',
    customer_id: account.customerId!,
    bucket_name: account.name,
    unit_label: account.unitLabel,
    amount_minor_units: amount.toString(),
    currency: started.currency,
    charge_reference: result.reference,
    reference: started.transactionId,
  } satisfies Prisma.InputJsonObject);
}

export const autoRechargeJob: JobHandler = {
  kind: AUTO_RECHARGE_JOB,
  retryDelaysMs: [60_000, 5 * 60_000, 30 * 60_000],
  async run(ctx, accountId) {
    const processor = paymentProcessorFor(ctx.mode);
    if (!processor) throw new Error(`no payment processor in ${ctx.mode}; auto-recharge of ${accountId} waits`);
    const started = await inTransaction(ctx, (tx) => startRecharge(tx, accountId));
    if (!started) return;
    const result = await processor.charge({
      idempotencyKey: `recharge:${started.transactionId}`,
      amount: started.amount,
      currency: started.currency,
      source: { paymentMethod: started.paymentMethod },
      description: 'Credits auto-recharge',
    });
    await inTransaction(ctx, (tx) => finishRecharge(tx, accountId, started, result));
  },
};
