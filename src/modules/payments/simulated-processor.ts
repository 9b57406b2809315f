import { randomBase62 } from '../../lib/secrets.js';
import type { ChargeRequest, ChargeResult, DeclineCode, PaymentProcessor } from './processor.js';

/** The test cards of docs/interface.md; any other valid card number succeeds. */
const TEST_CARD_OUTCOMES: Record<string, { code: DeclineCode; message: string }> = {
  '4000000000000002': { code: 'card_declined', message: 'Your card was declined.' },
  '4000000000009995': { code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000000127': { code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
};

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

  private decide({ card }: ChargeRequest): ChargeResult {
    const outcome = TEST_CARD_OUTCOMES[card.number];
    if (outcome) return { status: 'declined', ...outcome };
    return { status: 'succeeded', reference: `sim_${randomBase62(24)}` };
  }
}

export const simulatedProcessor: PaymentProcessor = new SimulatedProcessor();
