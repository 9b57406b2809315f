import type { RequestContext } from '../../context.js';
import { db, inTransaction } from '../../db/tenant.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { openSigningSecret } from './endpoint-secrets.js';
import type { AcknowledgeEventInput, ListPendingEventsInput } from './pending-events.schemas.js';
import { signDelivery } from './signing.js';

/**
 * Pull mode (`delivery_mode: cli`): nothing is POSTed; the endpoint's pending deliveries wait
 * here until a tool (the `listen` command) fetches them, forwards them to a local server and
 * acknowledges each with the status that server answered.
 */

/** Only a 200 counts as delivered, the same rule as HTTP delivery: anything else is tried again. */
const DELIVERED_STATUS = 200;

export interface PendingEventItem {
  id: string;
  object: 'webhook_event';
  event_type: string;
  created_at: string;
  body: string;
  headers: Record<string, string>;
}

export interface EventAck {
  id: string;
  object: 'webhook_event_ack';
  success: boolean;
}

async function cliEndpoint(ctx: RequestContext, id: string) {
  const endpoint = await db(ctx).webhookEndpoint.findFirst({ where: { id, deletedAt: null } });
  if (!endpoint) throw notFound('Webhook', id);
  if (endpoint.deliveryMode !== 'cli') {
    const message = `webhook ${id} has delivery_mode ${endpoint.deliveryMode}; pending events exist only for cli endpoints`;
    throw new AppError('invalid_state', message, [{ path: ['id'], message }]);
  }
  return endpoint;
}

/**
 * The endpoint's unacknowledged events, oldest first, each signed now with the endpoint's
 * secret by the same function HTTP delivery uses, so the body and headers are exactly what a
 * POST would have carried. Signing at pull time keeps `webhook-timestamp` fresh for
 * verifiers that reject old timestamps.
 */
export async function listPendingEvents(ctx: RequestContext, input: ListPendingEventsInput): Promise<{ items: PendingEventItem[] }> {
  const endpoint = await cliEndpoint(ctx, input.id);
  const deliveries = await db(ctx).webhookDelivery.findMany({
    where: { endpointId: endpoint.id, status: 'pending' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: input.limit,
    include: { event: true },
  });
  if (deliveries.length === 0) return { items: [] };
  const secret = await openSigningSecret(ctx.data, ctx.mode, endpoint.secretCiphertext);
  const now = ctx.clock.now();
  return {
    items: deliveries.map(({ event, createdAt }): PendingEventItem => {
      const signed = signDelivery({ id: event.id, type: event.type, createdAt: event.createdAt, payload: event.payload }, secret, now);
      return { id: event.id, object: 'webhook_event', event_type: event.type, created_at: createdAt.toISOString(), body: signed.body, headers: signed.headers };
    }),
  };
}

/**
 * Records what the local server answered for one pending event. A 200 completes the delivery;
 * any other status records the attempt and leaves the event pending for the next pull.
 * Acknowledging an already completed delivery again returns the stored result and records
 * nothing, so a tool that retries its acknowledgement cannot double-count.
 */
export async function acknowledgeEvent(ctx: RequestContext, input: AcknowledgeEventInput): Promise<EventAck> {
  const endpoint = await cliEndpoint(ctx, input.id);
  const delivered = input.status_code === DELIVERED_STATUS;
  const now = ctx.clock.now();
  return inTransaction(ctx, async (ctx): Promise<EventAck> => {
    const tx = db(ctx);
    const where = { eventId_endpointId: { eventId: input.event_id, endpointId: endpoint.id } };
    // A conditional update is the row lock: of two concurrent acknowledgements PostgreSQL lets
    // one change the pending row and re-evaluates `status = 'pending'` for the other after the
    // first commits, so a delivery is completed, and its attempt recorded, exactly once.
    const changed = await tx.webhookDelivery.updateMany({
      where: { eventId: input.event_id, endpointId: endpoint.id, status: 'pending' },
      data: delivered ? { status: 'succeeded', completedAt: now, attemptCount: { increment: 1 } } : { attemptCount: { increment: 1 } },
    });
    if (changed.count === 0) {
      const current = await tx.webhookDelivery.findUnique({ where, select: { status: true } });
      if (current?.status === 'succeeded') return { id: input.event_id, object: 'webhook_event_ack', success: true };
      throw notFound(`Pending event ${input.event_id} of webhook`, endpoint.id);
    }
    const delivery = await tx.webhookDelivery.findUniqueOrThrow({ where, select: { id: true } });
    await tx.deliveryAttempt.create({
      data: {
        id: newId('attempt'),
        deliveryId: delivery.id,
        attemptedAt: now,
        statusCode: input.status_code,
        // The local round trip happened on the developer's machine; the service cannot time it.
        durationMs: 0,
        responseExcerpt: input.response_body ?? null,
        source: 'ack',
      },
    });
    return { id: input.event_id, object: 'webhook_event_ack', success: delivered };
  });
}
