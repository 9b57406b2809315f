import type { Subscription } from '../../generated/prisma/client.js';
import type { RequestContext } from '../../context.js';
import { db } from '../../db/tenant.js';
import { readProjections } from '../../db/usage.js';
import { divRound, parseDecimal, toDecimalString, type Decimal } from '../../lib/money.js';
import { sha256Hex } from '../../lib/secrets.js';
import { postAgainstStore } from '../credits/credits.service.js';

/**
 * Usage on the renewal invoice. A subscription renews at the end of its current period, and
 * what its customer consumed through the product's metered prices in that period is billed
 * on that invoice: units beyond `free_allowance` at `unit_price`, the line total rounded once
 * to whole minor units (half away from zero), then held to `cap`. `prepaid` prices settle
 * units from the customer's credit account of the meter's unit label first (whole credits,
 * units rounded up; the posting emits `credits.consumed`, and `customer_credits.exhausted` at
 * zero); what the account cannot cover is billed as money. With `trial_usage_mode` `free`,
 * usage of a trial period is not billed.
 */
export interface UsageCharge {
  /** Money before tax, minor units. */
  amount: bigint;
  /** One line per price with something billed or settled, for the invoice description. */
  lines: string[];
}

type Billed = Pick<Subscription, 'id' | 'customerId' | 'productId' | 'currentPeriodStartDate' | 'currentPeriodEndDate' | 'trialEndDate'>;

/** A/b rounded half away from zero, for exact decimals. */
function times(units: Decimal, price: Decimal): bigint {
  return divRound(units.coefficient * price.coefficient, 10n ** BigInt(units.scale + price.scale));
}

const ceilUnits = (d: Decimal) => {
  const scale = 10n ** BigInt(d.scale);
  return (d.coefficient + scale - 1n) / scale;
};

/**
 * The usage charge of each subscription's ending period, settling prepaid units on the way;
 * runs in the transaction that issues the invoices (the credit postings' keys make a retried
 * renewal settle once). Subscriptions without usage prices are absent from the answer.
 */
export async function chargeUsage(ctx: RequestContext, subs: readonly Billed[]): Promise<Map<string, UsageCharge>> {
  const withPeriod = subs.filter((s) => s.currentPeriodStartDate && s.currentPeriodEndDate);
  if (!withPeriod.length) return new Map();
  const prices = await db(ctx).usagePrice.findMany({ where: { productId: { in: [...new Set(withPeriod.map((s) => s.productId))] } }, include: { meter: true }, orderBy: { id: 'asc' } });
  if (!prices.length) return new Map();
  const keys = withPeriod.flatMap((s) => prices.filter((p) => p.productId === s.productId).map((p) => ({ meterId: p.meterId, customerId: s.customerId, periodStart: s.currentPeriodStartDate! })));
  const consumed = await readProjections(ctx, keys);
  const unitsOf = (meterId: string, customerId: string, start: Date) =>
    consumed.find((c) => c.meterId === meterId && c.customerId === customerId && c.periodStart.getTime() === start.getTime())?.units ?? '0';
  const out = new Map<string, UsageCharge>();
  for (const s of withPeriod) {
    const trial = s.trialEndDate !== null && s.trialEndDate >= s.currentPeriodEndDate!;
    const charge: UsageCharge = { amount: 0n, lines: [] };
    for (const p of prices.filter((x) => x.productId === s.productId)) {
      if (trial && p.trialUsageMode === 'free') continue;
      const units = parseDecimal(unitsOf(p.meterId, s.customerId, s.currentPeriodStartDate!));
      const allowance = p.freeAllowance * 10n ** BigInt(units.scale);
      let billable: Decimal = { coefficient: units.coefficient > allowance ? units.coefficient - allowance : 0n, scale: units.scale };
      if (billable.coefficient === 0n) continue;
      if (p.settlementMode === 'prepaid') {
        const settled = await settleFromCredits(ctx, s, p.meter, ceilUnits(billable));
        if (settled > 0n) charge.lines.push(`${p.meter.name}: ${settled} ${p.meter.unitLabel} from credits`);
        const left = ceilUnits(billable) - settled;
        billable = { coefficient: left, scale: 0 };
        if (left === 0n) continue;
      }
      const total = times(billable, parseDecimal(p.unitPrice.toString()));
      const amount = p.cap !== null && total > p.cap ? p.cap : total;
      charge.amount += amount;
      charge.lines.push(`${p.meter.name}: ${toDecimalString(billable.coefficient, billable.scale)} ${p.meter.unitLabel}`);
    }
    if (charge.lines.length) out.set(s.id, charge);
  }
  return out;
}

/** Debits up to `units` credits from the customer's account of the meter's unit label; what it could take. */
async function settleFromCredits(ctx: RequestContext, s: Billed, meter: { id: string; unitLabel: string }, units: bigint): Promise<bigint> {
  const account = await db(ctx).creditAccount.findFirst({ where: { customerId: s.customerId, unitLabel: meter.unitLabel, owner: 'customer', status: 'active', balance: { gt: 0 } }, orderBy: { id: 'asc' } });
  if (!account) return 0n;
  const amount = units < account.balance ? units : account.balance;
  const key = `usage:${s.id}:${meter.id}:${s.currentPeriodStartDate!.toISOString()}`;
  await postAgainstStore(ctx, account, 'debit', amount, {
    reference: `usage:${s.id}`,
    idempotencyKey: key,
    requestHash: sha256Hex(`usage.settle\n${key}`),
    accountPath: ['usage_prices'],
    amountPath: ['usage_prices'],
  });
  return amount;
}
