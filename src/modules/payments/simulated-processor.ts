import { randomBase62 } from '../../lib/secrets.js';
import type { ChargeRequest, ChargeResult, DeclineCode, PaymentProcessor, RefundRequest, RefundResult } from './processor.js';

/** The test cards of docs/interface.md; any other valid card number succeeds. */
const TEST_CARD_OUTCOMES: Record<string, { code: DeclineCode; message: string }> = {
  '4000000000000002': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000009995': { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000000127': { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
};

/** Succeeds when entered; every later charge of the saved card is declined (dunning). */
export const DECLINES_LATER_CARD = '4000000000000341';
/** Succeeds; the buyer disputes the charge an hour later. */
export const DISPUTED_CARD = '4000000000000259';
const DISPUTE_AFTER_MS = 60 * 60 * 1000;

/**
 * Saved cards are tokens that carry how the test card behaves later, so a token still works
 * after a restart (this processor keeps no state worth the name): pm_sim_<behaviour>_<random>.
 */
type Later = 'ok' | 'declines' | 'disputed';
const tokenFor = (later: Later) => `pm_sim_${later}_${randomBase62(16)}`;
const laterOf = (token: string): Later | null => (/^pm_sim_(ok|declines|disputed)_[0-9A-Za-z]{16}$/.exec(token)?.[1] as Later | undefined) ?? null;
const DECLINED = { code: 'card_declined' as const, message: 'Your card was declined.' };

/**
 * The test environment's processor: no money moves. Outcomes are decided by the card number
 * alone (any future expiry, any CVC), like the sandbox cards of real processors. Results are
 * remembered per idempotency key for the life of the process, so a retried charge returns
 * the first outcome; after a restart `lookup` knows nothing, which the checkout treats as
 * "never charged" (true here: nothing was ever charged).
 */
class SimulatedProcessor implements PaymentProcessor {
  readonly name = 'simulated';
  private readonly results = new Map<string, ChargeResult>();

  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const known = this.results.get(request.idempotencyKey);
    if (known) return known;
    const result = this.decide(request);
    this.results.set(request.idempotencyKey, result);
    if (this.results.size > 100_000) this.results.delete(this.results.keys().next().value as string);
    return result;
  }

  async lookup(idempotencyKey: string): Promise<ChargeResult | null> {
    return this.results.get(idempotencyKey) ?? null;
  }

  private readonly refunds = new Map<string, RefundResult>();

  async refund(request: RefundRequest): Promise<RefundResult> {
    const known = this.refunds.get(request.idempotencyKey);
    if (known) return known;
    const result: RefundResult = { status: 'succeeded', reference: `simref_${randomBase62(24)}` };
    this.refunds.set(request.idempotencyKey, result);
    return result;
  }

  async lookupRefund(idempotencyKey: string): Promise<RefundResult | null> {
    return this.refunds.get(idempotencyKey) ?? null;
  }

  private decide({ source }: ChargeRequest): ChargeResult {
    const reference = `sim_${randomBase62(24)}`;
    if ('paymentMethod' in source) {
      const later = laterOf(source.paymentMethod);
      if (later === null || later === 'declines') return { status: 'declined', ...DECLINED };
      return { status: 'succeeded', reference, ...(later === 'disputed' ? { disputeAfterMs: DISPUTE_AFTER_MS } : {}) };
    }
    const { card } = source;
    const outcome = TEST_CARD_OUTCOMES[card.number];
    if (outcome) return { status: 'declined', ...outcome };
    const later: Later = card.number === DECLINES_LATER_CARD ? 'declines' : card.number === DISPUTED_CARD ? 'disputed' : 'ok';
    return {
      status: 'succeeded',
      reference,
      ...(source.save ? { savedPaymentMethod: { token: tokenFor(later), brand: 'visa', last4: card.number.slice(-4) } } : {}),
      ...(later === 'disputed' ? { disputeAfterMs: DISPUTE_AFTER_MS } : {}),
    };
  }
}

export const simulatedProcessor: PaymentProcessor = new SimulatedProcessor();
