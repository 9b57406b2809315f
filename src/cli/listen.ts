/**
 * `cli listen`: forwards the pending events of a `cli` webhook endpoint to a server on the
 * developer's machine, the way payment platforms' CLIs do. It is a client of the running
 * service's REST API only (pull, then acknowledge); it never opens the database, so it works
 * against a remote service and next to a server holding the embedded database.
 */

export interface ListenOptions {
  /** Base address of the service listener, e.g. http://127.0.0.1:8081 (test environment). */
  serviceUrl: string;
  apiKey: string;
  endpointId: string;
  /** The local URL each event is POSTed to. */
  forwardTo: string;
  /** Drain what is pending now, then return, instead of polling until aborted. */
  once?: boolean;
  intervalMs?: number;
  /** How long the local server may take to answer one event. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** One line per forwarded event. */
  print?: (line: string) => void;
  /** Status and trouble messages, kept apart from the event lines. */
  warn?: (line: string) => void;
}

export interface ListenSummary {
  forwarded: number;
  delivered: number;
  /** Acknowledgements the service did not take; those events stay pending and come again. */
  unacknowledged: number;
}

/** A problem polling cannot fix (bad key, unknown or non-cli endpoint, bad arguments). */
export class ListenError extends Error {
  override name = 'ListenError';
}

interface PendingItem {
  id: string;
  event_type: string;
  body: string;
  headers: Record<string, string>;
}

const PAGE_SIZE = 100;
const EXCERPT_MAX = 10_000;
/** What the official client's model says to report when the local server could not be reached. */
const UNREACHABLE_STATUS = 503;

function httpUrl(value: string, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ListenError(`${option}: not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ListenError(`${option}: must be an http(s) URL: ${value}`);
  return url;
}

async function errorMessage(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (Array.isArray(body.message)) return body.message.join('; ');
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not the service's JSON error body; show the raw text
  }
  return text.slice(0, 200) || res.statusText;
}

function describeFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  return cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function listen(options: ListenOptions): Promise<ListenSummary> {
  const base = httpUrl(options.serviceUrl, '--url');
  const target = httpUrl(options.forwardTo, '--forward-to').toString();
  if (!options.apiKey) throw new ListenError('an API key is required: --api-key or BILLING_API_KEY');
  if (!options.endpointId) throw new ListenError('a webhook endpoint id is required: --endpoint or BILLING_WEBHOOK_ID');
  const print = options.print ?? ((line: string) => console.log(line));
  const warn = options.warn ?? ((line: string) => console.error(line));
  const intervalMs = options.intervalMs ?? 2_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const endpointPath = `/v1/webhooks/${encodeURIComponent(options.endpointId)}/events`;
  const apiHeaders = { 'x-api-key': options.apiKey };
  const summary: ListenSummary = { forwarded: 0, delivered: 0, unacknowledged: 0 };

  async function pull(): Promise<PendingItem[]> {
    const res = await fetch(new URL(`${endpointPath}/pending?limit=${PAGE_SIZE}`, base), { headers: apiHeaders });
    if (res.status !== 200) {
      const message = `pending events of ${options.endpointId}: ${res.status} ${await errorMessage(res)}`;
      // Server-side trouble may pass; a refused key or a wrong endpoint will not.
      if (res.status >= 500) throw new Error(message);
      throw new ListenError(message);
    }
    return ((await res.json()) as { items: PendingItem[] }).items;
  }

  /** POSTs the body byte-for-byte with the signed headers unchanged: the signatures cover exactly these. */
  async function forward(item: PendingItem): Promise<{ status: number; body: string; failure?: string }> {
    try {
      const res = await fetch(target, { method: 'POST', headers: item.headers, body: item.body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      return { status: res.status, body: (await res.text()).slice(0, EXCERPT_MAX) };
    } catch (err) {
      const failure = describeFailure(err);
      return { status: UNREACHABLE_STATUS, body: `listen: could not reach ${target}: ${failure}`, failure };
    }
  }

  async function acknowledge(item: PendingItem, status: number, body: string): Promise<boolean> {
    try {
      const res = await fetch(new URL(`${endpointPath}/${encodeURIComponent(item.id)}/ack`, base), {
        method: 'POST',
        headers: { ...apiHeaders, 'content-type': 'application/json' },
        body: JSON.stringify({ status_code: status, response_body: body }),
      });
      if (res.status === 200) return true;
      warn(`acknowledging ${item.id} failed: ${res.status} ${await errorMessage(res)} (the event stays pending)`);
    } catch (err) {
      warn(`acknowledging ${item.id} failed: ${describeFailure(err)} (the event stays pending)`);
    }
    return false;
  }

  warn(`Forwarding events of webhook ${options.endpointId} from ${base.origin} to ${target}${options.once ? '' : ' (Ctrl-C to stop)'}`);
  while (!options.signal?.aborted) {
    let items: PendingItem[];
    try {
      items = await pull();
    } catch (err) {
      if (err instanceof ListenError || options.once) throw err instanceof ListenError ? err : new ListenError(`cannot reach the service at ${base.origin}: ${describeFailure(err)}`);
      warn(`cannot reach the service at ${base.origin}: ${describeFailure(err)}; retrying`);
      await sleep(intervalMs, options.signal);
      continue;
    }
    let allDelivered = true;
    // One at a time, oldest first: receivers see the endpoint's events in order where possible.
    for (const item of items) {
      if (options.signal?.aborted) break;
      const answer = await forward(item);
      const acked = await acknowledge(item, answer.status, answer.body);
      summary.forwarded += 1;
      if (!acked) summary.unacknowledged += 1;
      else if (answer.status === 200) summary.delivered += 1;
      if (!acked || answer.status !== 200) allDelivered = false;
      print(`${new Date().toISOString()}  ${item.event_type}  ${item.id}  -> ${answer.failure ? `${answer.status} (${answer.failure})` : answer.status}`);
    }
    // A full page that all went through may have more behind it; anything else waits for the next poll,
    // or ends a single pass (undelivered events stay pending and would come back immediately).
    if (items.length === PAGE_SIZE && allDelivered) continue;
    if (options.once) break;
    await sleep(intervalMs, options.signal);
  }
  return summary;
}
