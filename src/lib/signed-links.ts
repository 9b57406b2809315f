import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DataScope } from '../db/tenant.js';
import type { Mode } from '../generated/prisma/enums.js';
import { serviceSecret } from './service-secret.js';

/**
 * Links that are their own credential (the customer portal, split invitations): the query
 * `expires=…&signature=…` signs the subject, the environment and the expiry with a service key
 * of the kind, so a link works for that subject, in that environment, until then, and cannot
 * be altered.
 */
export function signedLinks(keyName: string) {
  const sign = (secret: Buffer, subject: string, mode: Mode, expires: number) => createHmac('sha256', secret).update(`${subject}.${mode}.${expires}`).digest('base64url');
  return {
    /** The query string of a link for `subject`, valid until `expires` (Unix ms). */
    async query(scope: DataScope, subject: string, mode: Mode, expires: number): Promise<string> {
      return `expires=${expires}&signature=${sign(await serviceSecret(scope, keyName), subject, mode, expires)}`;
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
