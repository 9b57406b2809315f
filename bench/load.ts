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
}

function fire(url: string, headers: Record<string, string>, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, headers, connections, duration, pipelining: 1 });
}

/**
 * A short warm-up at the same concurrency first: it opens the database pool's connections,
 * fills the API-key cache and lets V8 optimise the hot path, none of which the steady
 * state pays for. Its latencies are discarded; its failures are not.
 */
export async function measure(o: LoadOptions): Promise<LoadResult> {
  const warm = await fire(o.url, o.headers, o.connections, o.warmupSec);
  const run = await fire(o.url, o.headers, o.connections, o.durationSec);
  return {
    connections: o.connections,
    requestsPerSec: run.requests.average,
    p50Ms: run.latency.p50,
    p99Ms: run.latency.p99,
    non2xx: warm.non2xx + run.non2xx,
    errors: warm.errors + run.errors,
  };
}
