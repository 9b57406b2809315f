import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DataScope } from '../db/tenant.js';
import type { Mode } from '../generated/prisma/enums.js';
import { serviceSecret } from './service-secret.js';

/** What making a link needs of a request's context. */
interface LinkContext {
  data: DataScope;
  mode: Mode;
  baseUrl: string;
  clock: { now(): Date };
}

/**
 * Links that are their own credential (the customer portal, split and affiliate invitations):
 * the page `path/subject` with the query `expires=…&signature=…`, which signs the subject, the
 * environment and the expiry with a service key of the kind, so a link works for that subject,
 * in that environment, for `ttlMs`, and cannot be altered.
 */
export function signedLinks(keyName: string, page: { path: string; ttlMs: number }) {
  const sign = (secret: Buffer, subject: string, mode: Mode, expires: number) => createHmac('sha256', secret).update(`${subject}.${mode}.${expires}`).digest('base64url');
  return {
    /** The page's URL for `subject`, valid `ttlMs` from the context's now. Outside a transaction (the key is read from the database once). */
    async url(ctx: LinkContext, subject: string): Promise<string> {
      const expires = ctx.clock.now().getTime() + page.ttlMs;
      return `${ctx.baseUrl}/${page.path}/${subject}?expires=${expires}&signature=${sign(await serviceSecret(ctx.data, keyName), subject, ctx.mode, expires)}`;
    },
    /** Whether a link's `expires` and `signature` are genuine for the subject and environment, and not yet expired. */
    async valid(scope: DataScope, mode: Mode, now: Date, subject: string, expires: string, signature: string): Promise<boolean> {
      const exp = Number(expires);
      if (!Number.isSafeInteger(exp) || exp <= now.getTime()) return false;
      const expected = Buffer.from(sign(await serviceSecret(scope, keyName), subject, mode, exp));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}
