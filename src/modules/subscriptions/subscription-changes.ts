import { sharePaidTransaction } from '../payments/payment-shares.js';
import type { Discount } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db, inTransaction, lockRow } from '../../db/tenant.js';
import { AppError, invalidField, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { divRound } from '../../lib/money.js';
import { discountAmountFor } from '../discounts/discounts.service.js';
import { paymentProcessorFor, type ChargeResult } from '../payments/processor.js';
import { computeTax } from '../tax/tax.js';
import { invoiceFor, nextPeriod } from './renewals.js';
import type { PreviewChangeInput, UpdateBehavior, UpdateSubscriptionInput, UpgradeSubscriptionInput } from './subscriptions.schemas.js';
import { announceSubscription, type SubscriptionWithRelations } from './subscriptions.service.js';

/**
 * Mid-period changes: units (update) and product (upgrade or downgrade), with proration.
 *
 * The difference for the rest of the period is
 *   new_amount × remaining / period − old_amount × remaining / period
 * with times in milliseconds at the moment of the change, rounded half away from zero once, on
 * the final amount; amounts are price × units before discount and tax. Discount and tax then
 * apply to it as to any invoice: a percentage discount in effect for the current period, and
 * the tax of the subscription's country. `update_behavior` decides where it goes:
 * - proration-charge-immediately: charged now with the saved card (a negative difference, a
 *   downgrade, is a credit on the next invoice);
 * - proration-charge: added to the next renewal invoice (negative: a credit on it);
 * - proration-none: nothing; the new price applies from the next renewal.
 * A preview answers exactly what the change would charge, now and on the next invoice.
 */

type Locked = NonNullable<Awaited<ReturnType<typeof loadLocked>>>;

interface Change {
  /** The item named by an update; it must be the subscription's. */
  itemId?: string;
  productId?: string;
  units?: number;
  behavior: UpdateBehavior;
  at?: Date;
}

interface Lines {
  amount: bigint;
  tax: bigint;
  discount: bigint;
}

const ZERO: Lines = { amount: 0n, tax: 0n, discount: 0n };

export interface ChangePlan {
  at: Date;
  behavior: UpdateBehavior;
  product: Locked['product'];
  unitPrice: bigint;
  units: number;
  /** The difference for the rest of the period, before discount and tax. */
  difference: bigint;
  chargeNow: Lines;
  /** What the change adds to the next invoice (negative: a credit). */
  toNextInvoice: Lines;
  nextInvoice: Lines & { periodStart: Date; periodEnd: Date };
  currency: string;
}

async function loadLocked(ctx: RequestContext, id: string) {
  if (!(await lockRow(ctx, 'Subscription', id))) throw notFound('Subscription', id);
  return db(ctx).subscription.findUniqueOrThrow({ where: { id }, include: { product: true, discount: true, items: true, transactions: { where: { status: 'pending', attempt: null }, take: 1 } } });
}

/** The discount of the current period, when it was discounted (a percentage one: a fixed amount is taken once per invoice). */
async function periodDiscount(ctx: RequestContext, s: Locked): Promise<Discount | null> {
  if (!s.discount || s.discount.type !== 'percentage' || !s.lastTransactionId) return null;
  const last = await db(ctx).transaction.findUnique({ where: { id: s.lastTransactionId }, select: { discountAmount: true } });
  return last && last.discountAmount > 0n ? s.discount : null;
}

/** Discount and tax on a difference, as on any invoice; a negative difference gets them with its sign. */
function linesFor(difference: bigint, discount: Discount | null, product: Locked['product'], s: Locked): Lines {
  if (difference === 0n) return ZERO;
  const sign = difference < 0n ? -1n : 1n;
  const magnitude = difference * sign;
  const off = discount ? discountAmountFor(discount, magnitude) : 0n;
  const tax = computeTax({ amount: magnitude - off, taxMode: product.taxMode, taxCategory: product.taxCategory, businessNetPricing: product.businessNetPricing, country: s.taxCountry, taxId: s.taxId });
  return { amount: sign * tax.total, tax: sign * tax.tax, discount: sign * off };
}

async function plan(ctx: RequestContext, s: Locked, change: Change): Promise<ChangePlan> {
  if (s.status !== 'active' && s.status !== 'trialing') {
    throw new AppError('invalid_state', `Subscription ${s.id} is ${s.status}; only active or trialing subscriptions can be changed`, [{ path: ['status'], message: `is ${s.status}; a change needs active or trialing` }]);
  }
  const item = s.items[0]!;
  if (change.itemId !== undefined && change.itemId !== item.id) throw invalidField(['items', 0, 'id'], `is not an item of subscription ${s.id} (its item is ${item.id})`);
  let product = s.product;
  if (change.productId !== undefined && change.productId !== s.productId) {
    const found = await db(ctx).product.findUnique({ where: { id: change.productId } });
    if (!found) throw invalidField(['product_id'], `no product ${change.productId} in this store and environment`);
    if (found.billingType !== 'recurring') throw invalidField(['product_id'], 'must be a recurring product');
    if (found.status !== 'active') throw invalidField(['product_id'], 'must be an active product, not archived');
    if (found.currency !== s.product.currency) throw invalidField(['product_id'], `must be priced in ${s.product.currency}, the subscription's currency, not ${found.currency}`);
    product = found;
  } else if (change.units === undefined || change.units === item.units) {
    throw invalidField([change.productId !== undefined ? 'product_id' : 'units'], 'changes nothing: the subscription already has it');
  }
  const units = change.units ?? item.units;
  // The same product keeps the price it was sold at (pay what you want); another one brings its own.
  const unitPrice = product.id === s.productId ? (item.unitPrice ?? product.price) : product.price;
  const start = s.currentPeriodStartDate!;
  const end = s.currentPeriodEndDate!;
  const now = ctx.clock.now();
  const at = change.at ?? now;
  if (at.getTime() > now.getTime() || at < start) throw invalidField(['proration_date'], `must be within the current period (${start.toISOString()} to now)`);
  // A trial is not charged: nothing to prorate; the new price applies from its first paid period.
  const prorated = change.behavior !== 'proration-none' && s.status === 'active';
  const remaining = BigInt(Math.max(0, end.getTime() - at.getTime()));
  const length = BigInt(end.getTime() - start.getTime());
  const oldAmount = (item.unitPrice ?? s.product.price) * BigInt(item.units);
  const newAmount = unitPrice * BigInt(units);
  const difference = prorated && length > 0n ? divRound((newAmount - oldAmount) * remaining, length) : 0n;
  const lines = linesFor(difference, await periodDiscount(ctx, s), product, s);
  const chargedNow = change.behavior === 'proration-charge-immediately' && lines.amount > 0n;
  const chargeNow = chargedNow ? lines : ZERO;
  const toNextInvoice = chargedNow ? ZERO : lines;
  const after = {
    ...s,
    product,
    items: [{ ...item, productId: product.id, units, unitPrice }],
    pendingProrationAmount: s.pendingProrationAmount + toNextInvoice.amount,
    pendingProrationTax: s.pendingProrationTax + toNextInvoice.tax,
    pendingProrationDiscount: s.pendingProrationDiscount + toNextInvoice.discount,
  };
  const next = invoiceFor(after);
  const period = nextPeriod(after);
  return {
    at,
    behavior: change.behavior,
    product,
    unitPrice,
    units,
    difference,
    chargeNow,
    toNextInvoice,
    nextInvoice: { amount: next.amount_due, tax: next.tax_amount, discount: next.discount_amount, periodStart: period.start, periodEnd: period.end },
    currency: s.product.currency,
  };
}

/** What a change writes: product, units and price from now, and what goes to the next invoice. */
interface Applied {
  productId: string;
  units: number;
  unitPrice: bigint;
  toNextInvoice: Lines;
}

const appliedOf = (p: ChangePlan): Applied => ({ productId: p.product.id, units: p.units, unitPrice: p.unitPrice, toNextInvoice: p.toNextInvoice });

/** Writes the change and records `subscription.update`. */
async function apply(ctx: RequestContext, s: Locked, p: Applied): Promise<SubscriptionWithRelations> {
  const item = s.items[0]!;
  await db(ctx).subscriptionItem.update({ where: { id: item.id }, data: { productId: p.productId, priceId: p.productId, units: p.units, unitPrice: p.unitPrice } });
  await db(ctx).subscription.update({
    where: { id: s.id },
    data: {
      productId: p.productId,
      pendingProrationAmount: { increment: p.toNextInvoice.amount },
      pendingProrationTax: { increment: p.toNextInvoice.tax },
      pendingProrationDiscount: { increment: p.toNextInvoice.discount },
    },
  });
  return announceSubscription(ctx, s.id, ['subscription.update']);
}

type Started =
  | { kind: 'done'; subscription: SubscriptionWithRelations }
  | { kind: 'charge'; transactionId: string; amount: bigint; currency: string; paymentMethod: string | null; applied: Applied };

/**
 * Changes a subscription. Without a charge now, one transaction. With one, three steps, so no
 * transaction is open while the card is charged: record a pending proration invoice, charge it,
 * then apply the change if it was paid (a decline changes nothing and answers 402).
 */
async function change(ctx: RequestContext, id: string, c: Change): Promise<SubscriptionWithRelations> {
  const started = await inTransaction(ctx, async (tx): Promise<Started> => {
    const s = await loadLocked(tx, id);
    if (s.transactions.length) throw new AppError('change_in_progress', `Subscription ${id} has a change being charged; retry in a moment`);
    const p = await plan(tx, s, c);
    if (p.chargeNow.amount === 0n) return { kind: 'done', subscription: await apply(tx, s, appliedOf(p)) };
    const t = await db(tx).transaction.create({
      data: {
        id: newId('transaction'),
        customerId: s.customerId,
        subscriptionId: s.id,
        amount: p.chargeNow.amount,
        taxAmount: p.chargeNow.tax,
        discountAmount: p.chargeNow.discount,
        taxCountry: s.taxCountry,
        currency: p.currency,
        type: 'invoice',
        status: 'pending',
        description: `Proration: ${p.product.name} × ${p.units} for the rest of the period`,
        periodStart: p.at,
        periodEnd: s.currentPeriodEndDate,
        createdAt: tx.clock.now(),
      },
    });
    return { kind: 'charge', transactionId: t.id, amount: t.amount, currency: t.currency, paymentMethod: s.paymentMethodToken, applied: appliedOf(p) };
  });
  if (started.kind === 'done') return started.subscription;
  const processor = paymentProcessorFor(ctx.mode);
  if (!processor) throw new AppError('processor_unavailable', 'No payment processor is configured in this environment');
  const result: ChargeResult = started.paymentMethod
    ? await processor.charge({ idempotencyKey: started.transactionId, amount: started.amount, currency: started.currency, source: { paymentMethod: started.paymentMethod }, description: 'Proration' })
    : { status: 'declined', code: 'card_declined', message: 'No saved payment method' };
  const outcome = await inTransaction(ctx, async (tx) => {
    const s = await loadLocked(tx, id);
    const settled = await db(tx).transaction.updateMany({
      where: { id: started.transactionId, status: 'pending' },
      data: result.status === 'succeeded' ? { status: 'paid', amountPaid: started.amount, processorReference: result.reference } : { status: 'declined', declineCode: result.code },
    });
    if (result.status !== 'succeeded') return { declined: result.message };
    if (settled.count === 0) return { subscription: await announceSubscription(tx, id, []) };
    // What was paid for is what step 1 planned: applied as it was, whatever happened to the
    // subscription meanwhile (a cancel, a renewal), so that no paid change is lost.
    await db(tx).subscription.update({ where: { id }, data: { lastTransactionId: started.transactionId, lastTransactionDate: tx.clock.now() } });
    await sharePaidTransaction(tx, started.transactionId, started.applied.productId, s.affiliateId);
    return { subscription: await apply(tx, s, started.applied) };
  });
  if ('declined' in outcome) throw new AppError('card_declined', `The card was declined (${outcome.declined}); the subscription is unchanged`);
  return outcome.subscription;
}

export function updateSubscription(ctx: RequestContext, input: UpdateSubscriptionInput): Promise<SubscriptionWithRelations> {
  const item = input.items[0]!;
  return change(ctx, input.id, { itemId: item.id, units: item.units, ...(item.product_id ? { productId: item.product_id } : {}), behavior: input.update_behavior, at: input.proration_date });
}

export function upgradeSubscription(ctx: RequestContext, input: UpgradeSubscriptionInput): Promise<SubscriptionWithRelations> {
  return change(ctx, input.id, { productId: input.product_id, behavior: input.update_behavior, at: input.proration_date });
}

/** What the change would do, priced at `proration_date` (default now), without writing anything. */
export async function previewChange(ctx: RequestContext, input: PreviewChangeInput): Promise<ChangePlan> {
  return inTransaction(ctx, async (tx) => plan(tx, await loadLocked(tx, input.id), { productId: input.product_id, units: input.units, behavior: input.update_behavior, at: input.proration_date }));
}
