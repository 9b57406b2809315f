import type { Router } from 'express';
import { requestContext } from '../../rest/request-context.js';
import { acknowledgeEvent, listPendingEvents } from './pending-events.service.js';

/** Pull mode; path parameters are applied last so a body cannot redirect the call to another endpoint or event. */
export function pendingEventRoutes(router: Router) {
  router.get('/webhooks/:id/events/pending', async (req, res) => {
    res.json(await listPendingEvents(requestContext(res), { ...req.query, id: req.params.id }));
  });
  router.post('/webhooks/:id/events/:event_id/ack', async (req, res) => {
    const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
    res.json(await acknowledgeEvent(requestContext(res), { ...body, id: req.params.id, event_id: req.params.event_id }));
  });
}
