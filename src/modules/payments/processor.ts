import type { Mode } from '../../generated/prisma/enums.js';
import { simulatedProcessor } from './simulated-processor.js';

export interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
}

/** A card the processor keeps for later charges; the service stores only this. */
export interface SavedPaymentMethod {
  token: string;
  brand: string;
  last4: string;
}

export interface ChargeRequest {
  /** The same key always means the same charge: a retried request must never charge twice. */
  idempotencyKey: string;
  /** Minor units of `currency`. */
  amount: bigint;
  currency: string;
  /** A card the buyer entered, or the token of one saved earlier (renewals). */
  source: { card: CardDetails; save?: boolean } | { paymentMethod: string };
  description: string;
}

export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'incorrect_cvc' | 'expired_card';

export type ChargeResult =
  | {
      status: 'succeeded';
      reference: string;
      /** The card, saved for later charges, when the request asked for it. */
      savedPaymentMethod?: SavedPaymentMethod;
      /**
       * The simulated processor's stand-in for a dispute a real processor reports later by its
       * own webhook: the buyer disputes this charge this long after it (test card 0259).
       */
      disputeAfterMs?: number;
    }
  | { status: 'declined'; code: DeclineCode; message: string };

export interface RefundRequest {
  /** The same key always means the same refund. */
  idempotencyKey: string;
  /** The processor's reference of the charge given back. */
  chargeReference: string;
  amount: bigint;
  currency: string;
}

export type RefundResult = { status: 'succeeded'; reference: string } | { status: 'failed'; message: string };

/**
 * What the checkout needs from a payment processor. A real integration (a card acquirer's
 * API) implements this; the service itself ships only the test environment's simulation.
 */
export interface PaymentProcessor {
  readonly name: string;
  /** Charges (or, for amount 0, verifies) the card. Must be idempotent on `idempotencyKey`. */
  charge(request: ChargeRequest): Promise<ChargeResult>;
  /** The outcome of an earlier charge by its idempotency key, or null if it never reached the processor. */
  lookup(idempotencyKey: string): Promise<ChargeResult | null>;
  /** Gives back (part of) a charge. Must be idempotent on `idempotencyKey`. */
  refund(request: RefundRequest): Promise<RefundResult>;
  /** The outcome of an earlier refund by its key, or null if it never reached the processor. */
  lookupRefund(idempotencyKey: string): Promise<RefundResult | null>;
}

const processors = new Map<Mode, PaymentProcessor>([['test', simulatedProcessor]]);

/** The processor of an environment, or null when none is configured (production, out of the box). */
export function paymentProcessorFor(mode: Mode): PaymentProcessor | null {
  return processors.get(mode) ?? null;
}

/** Plugs a processor into an environment (integrations, tests). */
export function setPaymentProcessor(mode: Mode, processor: PaymentProcessor | null): void {
  if (processor) processors.set(mode, processor);
  else processors.delete(mode);
}
