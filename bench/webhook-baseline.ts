/**
 * The reference for webhook delivery: one process that signs each event with the service's
 * own signDelivery and POSTs it with the worker's own HTTP client, CONCURRENCY loops each
 * sending its share one after another (as the worker sends per endpoint) — no database.
 * Prints `{ events, ms, failures }` as JSON. RECEIVER_URL, EVENTS, CONCURRENCY.
 */
import { postSigned } from '../src/modules/webhooks/http-post.js';
import { generateSigningSecret, signDelivery } from '../src/modules/webhooks/signing.js';
import { benchEvent } from './webhook-payload.js';

const url = process.env.RECEIVER_URL;
const events = Number(process.env.EVENTS);
const concurrency = Number(process.env.CONCURRENCY);
if (!url || !Number.isInteger(events) || !Number.isInteger(concurrency)) {
  console.error('webhook-baseline needs RECEIVER_URL, EVENTS and CONCURRENCY');
  process.exit(2);
}

const secret = generateSigningSecret();
let failures = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async (_, loop) => {
    for (let i = loop; i < events; i += concurrency) {
      const outcome = await postSigned(url, signDelivery(benchEvent(i), secret, new Date()), { timeoutMs: 10_000 });
      if (outcome.statusCode !== 200) failures++;
    }
  }),
);
console.log(JSON.stringify({ events, ms: performance.now() - started, failures }));
