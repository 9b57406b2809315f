/** One load measurement with autocannon, reduced to the numbers the report shows. */
import autocannon from 'autocannon';

export interface LoadResult {
  connections: number;
  /** Average of autocannon's per-second request counts. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx, warm-up included: any of them means the run is broken. */
  non2xx: number;
  /** Connection errors and timeouts, warm-up included. */
  errors: number;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** GET unless given; a POST sends `body` on every request (the GraphQL query). */
  method?: 'GET' | 'POST';
  body?: string;
  /** POSTs built anew for every request (`url` is then the origin): a debit of a random account, a new batch of events. */
  next?: () => { path: string; body: string };
}

function fire(o: LoadOptions, duration: number): Promise<autocannon.Result> {
  const common = { url: o.url, headers: o.headers, connections: o.connections, duration, pipelining: 1 };
  if (o.next) return autocannon({ ...common, requests: [{ method: 'POST', setupRequest: (req) => ({ ...req, ...o.next!() }) }] });
  return autocannon({ ...common, method: o.method ?? 'GET', ...(o.body === undefined ? {} : { body: o.body }) });
}

/**
 * A short warm-up at the same concurrency first: it opens the database pool's connections,
 * fills the API-key cache and lets V8 optimise the hot path, none of which the steady
 * state pays for. Its latencies are discarded; its failures are not.
 */
export async function measure(o: LoadOptions): Promise<LoadResult> {
  const warm = await fire(o, o.warmupSec);
  const run = await fire(o, o.durationSec);
  return {
    connections: o.connections,
    requestsPerSec: run.requests.average,
    p50Ms: run.latency.p50,
    p99Ms: run.latency.p99,
    non2xx: warm.non2xx + run.non2xx,
    errors: warm.errors + run.errors,
  };
}
