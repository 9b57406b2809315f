import type { Request, Response } from 'express';
import { contextFor, type RequestContext, type ServiceEnv } from '../context.js';
import { storeOwning } from '../db/system.js';
import type { DataScope } from '../db/tenant.js';
import type { Mode } from '../generated/prisma/enums.js';
import { withStoreClock } from '../modules/test-clock/test-clock.service.js';
import { sendMessage } from './render.js';

type LinkCheck = (scope: DataScope, mode: Mode, now: Date, subject: string, expires: string, signature: string) => Promise<boolean>;

/**
 * Pages opened by a signed link (the customer portal, split and affiliate invitations): the
 * link is the capability. It names a row (`owner`), whose store the page then reads as.
 */
export function signedPages(env: ServiceEnv, options: { valid: LinkCheck; owner: Parameters<typeof storeOwning>[1]; expired: string; gone: string }) {
  const param = (req: Request, name: 'expires' | 'signature') => String(req.query[name] ?? '');
  return {
    /** The owning store's context when the link is genuine and current; else the page has answered (403, or 404 when the row is gone). */
    async linked(req: Request, res: Response, subject: string): Promise<RequestContext | null> {
      if (!(await options.valid(env.data, env.mode, env.clock.now(), subject, param(req, 'expires'), param(req, 'signature')))) {
        sendMessage(res, 403, 'Link expired', options.expired);
        return null;
      }
      const storeId = await storeOwning(env.data, options.owner, subject, env.mode);
      if (!storeId) {
        sendMessage(res, 404, 'Not found', options.gone);
        return null;
      }
      return withStoreClock(contextFor(env, storeId, { traceId: res.locals.traceId as string, source: 'page' }));
    },
    /** The link's own query, for the page's forms and links back to it. */
    linkQuery: (req: Request) => `expires=${encodeURIComponent(param(req, 'expires'))}&signature=${encodeURIComponent(param(req, 'signature'))}`,
    /** When the link stops working, as the page shows it. */
    expiresText: (req: Request) => new Date(Number(req.query.expires)).toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
  };
}
