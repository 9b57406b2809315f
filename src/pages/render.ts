import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Response } from 'express';

// autoEscape: every `<%= %>` is HTML-escaped; raw `<%~ %>` is used only for HTML we built safely.
const eta = new Eta({ views: fileURLToPath(new URL('./views', import.meta.url)), autoEscape: true, cache: true });

/**
 * Sends a hosted page. A fresh nonce allows only this response's own style and script; the
 * page cannot be framed (clickjacking on a payment form) and is never cached.
 */
export function sendPage(res: Response, status: number, view: string, title: string, data: Record<string, unknown>) {
  const nonce = randomBytes(16).toString('base64');
  const body = eta.render(view, { ...data, nonce });
  const html = eta.render('layout', { title, nonce, body });
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'none'; img-src https: http: data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'`,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    })
    .send(html);
}

export function sendMessage(res: Response, status: number, heading: string, text: string, link?: { href: string; label: string }) {
  sendPage(res, status, 'message', heading, { heading, text, link: link ?? null });
}
