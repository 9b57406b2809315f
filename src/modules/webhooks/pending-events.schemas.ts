import { z } from 'zod';
import { resourceId as id } from '../../lib/schemas.js';

/** GET /v1/webhooks/{id}/events/pending: path id + query. Other query parameters are ignored, like elsewhere. */
export const listPendingEventsSchema = z.object({
  id,
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type ListPendingEventsInput = z.infer<typeof listPendingEventsSchema>;

/** Kept of a local server's answer: the official client documents response_body as truncated to 10,000 characters. */
export const RESPONSE_EXCERPT_MAX = 10_000;

/** POST /v1/webhooks/{id}/events/{event_id}/ack: path ids + AcknowledgeWebhookEventRequestEntity. */
export const acknowledgeEventSchema = z.strictObject({
  id,
  event_id: id,
  // An HTTP status; the forwarding tool reports 503 when the local server could not be reached.
  status_code: z.number().int().min(100).max(599),
  // Longer answers are cut rather than refused: a verbose local error page must not lose the acknowledgement.
  response_body: z
    .string()
    .optional()
    .transform((s) => (s === undefined ? undefined : s.slice(0, RESPONSE_EXCERPT_MAX))),
});
export type AcknowledgeEventInput = z.infer<typeof acknowledgeEventSchema>;
