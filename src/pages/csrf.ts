import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';

export const CSRF_COOKIE = 'checkout_csrf';

/**
 * Anti-forgery for the hosted forms (double-submit cookie, signed): the browser holds a random
 * SameSite=Strict cookie, and the form carries HMAC(service key, form id + cookie). A page of
 * another site can make a browser send the form but can neither read the token nor make the
 * browser attach the cookie to a cross-site POST.
 */
export function csrfToken(secret: Buffer, formId: string, nonce: string): string {
  return createHmac('sha256', secret).update(`${formId}.${nonce}`).digest('base64url');
}

/** A cookie of the request; a malformed header or value reads as absent, never as an error. */
function readCookie(req: Request, name: string): string | undefined {
  return parseCookie(req.get('cookie') ?? '')[name];
}

/** The browser's nonce, set on first visit. */
export function csrfNonce(req: Request, res: Response, secure: boolean): string {
  const existing = readCookie(req, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{22,64}$/.test(existing)) return existing;
  const nonce = randomBytes(24).toString('base64url');
  res.cookie(CSRF_COOKIE, nonce, { httpOnly: true, sameSite: 'strict', secure, path: '/' });
  return nonce;
}

export function csrfValid(req: Request, secret: Buffer, formId: string, submitted: unknown): boolean {
  // Browsers say where a request comes from; anything not from this origin is refused outright.
  const site = req.get('sec-fetch-site');
  if (site && site !== 'same-origin' && site !== 'none') return false;
  const nonce = readCookie(req, CSRF_COOKIE);
  if (!nonce || typeof submitted !== 'string') return false;
  const expected = Buffer.from(csrfToken(secret, formId, nonce));
  const given = Buffer.from(submitted);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
