import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { SignedDelivery } from './signing.js';

export interface PostOutcome {
  /** Null when there was no answer (refused, timeout, DNS failure, refused address). */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** The first characters of the answer's body, for the seller's debugging. */
  responseExcerpt: string | null;
}

export const RESPONSE_EXCERPT_CHARS = 500;
/** Bytes read from an answer at most: a receiver cannot make us buffer an unbounded body. */
const READ_LIMIT_BYTES = 4 * RESPONSE_EXCERPT_CHARS;

// Kept-alive connections: a receiver usually gets many deliveries in a row. Guarded
// (production) requests get agents of their own so they never reuse a socket opened
// without the address check.
const agents = {
  open: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
  guarded: { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) },
};

export interface PostOptions {
  timeoutMs: number;
  /** Resolves the host at connect time; the worker passes one that refuses non-public addresses. */
  lookup?: LookupFunction;
}

/**
 * POSTs a signed delivery and reports what happened; never throws. Redirects are not
 * followed (a 3xx is a failed attempt): following one could lead a production delivery to
 * an address the SSRF check refused. `timeoutMs` bounds the whole exchange in real time.
 */
export function postSigned(url: string, delivery: SignedDelivery, options: PostOptions): Promise<PostOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish({ statusCode: null, error: `invalid URL ${url}`, responseExcerpt: null });
    }
    const secure = target.protocol === 'https:';
    const pool = options.lookup ? agents.guarded : agents.open;
    const req = (secure ? https : http).request(target, {
      method: 'POST',
      headers: { ...delivery.headers, 'content-length': Buffer.byteLength(delivery.body) },
      agent: secure ? pool.https : pool.http,
      ...(options.lookup ? { lookup: options.lookup } : {}),
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within ${options.timeoutMs} ms (timeout)`, responseExcerpt: null });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      finish({ statusCode: null, error: err.code ? `${err.code}: ${err.message}` : err.message, responseExcerpt: null });
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_CHARS);
        finish({ statusCode: status, error: status === 200 ? null : `receiver answered ${status}`, responseExcerpt: excerpt });
      };
      res.on('data', (chunk: Buffer) => {
        if (size >= READ_LIMIT_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough for the excerpt: stop reading a possibly endless body; the status counts.
        if (size >= READ_LIMIT_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      // A body cut short still leaves the status as the answer.
      res.on('error', done);
      res.on('close', done);
    });
    req.end(delivery.body);
  });
}
