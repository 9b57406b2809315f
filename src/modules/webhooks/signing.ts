import { createHmac, randomBytes } from 'node:crypto';

/** What a delivery carries: the exact body string and the headers, identical for HTTP and pull mode. */
export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

export interface EventForDelivery {
  id: string;
  type: string;
  createdAt: Date;
  payload: unknown;
}

/**
 * A new signing secret in the Standard Webhooks form (`whsec_` + base64 of 32 random bytes),
 * which common verifiers, the official client's included, accept as it is.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The body of every delivery: `{ id, eventType, created_at, object }`, serialized once. */
export function deliveryBody(event: EventForDelivery): string {
  return JSON.stringify({ id: event.id, eventType: event.type, created_at: event.createdAt.getTime(), object: event.payload });
}

/**
 * Body and headers of a delivery sent at `now`:
 * - `service-signature`: lowercase hex HMAC-SHA256 of the body, keyed with the secret string;
 * - Standard Webhooks: `webhook-id` (the event id, stable across retries so receivers can
 *   drop duplicates), `webhook-timestamp` (seconds), `webhook-signature: v1,<base64>` over
 *   `id.timestamp.body`, keyed with the base64-decoded part of the secret after `whsec_`.
 */
export function signDelivery(event: EventForDelivery, secret: string, now: Date): SignedDelivery {
  const body = deliveryBody(event);
  const timestamp = Math.floor(now.getTime() / 1000);
  const standardKey = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const standard = createHmac('sha256', standardKey).update(`${event.id}.${timestamp}.${body}`).digest('base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'service-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${standard}`,
    },
  };
}
