import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';

/**
 * A referral link carries the affiliate's code to the checkout two ways: in the buy link's
 * `ref` parameter, and in a cookie per store that a later visit to any of the store's buy
 * links still finds, for the program's cookie days. The parameter wins over the cookie.
 */
const cookieName = (storeId: string) => `ref_${storeId}`;
const CODE = /^[0-9A-Za-z]{4,64}$/;

export function rememberReferral(res: Response, storeId: string, code: string, days: number, secure: boolean) {
  res.cookie(cookieName(storeId), code, { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: days * 24 * 60 * 60 * 1000 });
}

/** The code a request carries for a store, if any; malformed values read as none. */
export function referralCodeOf(req: Request): (storeId: string) => string | undefined {
  return (storeId) => {
    const given = typeof req.query.ref === 'string' ? req.query.ref : parseCookie(req.get('cookie') ?? '')[cookieName(storeId)];
    return given && CODE.test(given) ? given : undefined;
  };
}
