import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { AppError } from '../../lib/errors.js';

/**
 * Server-side request forgery guard for webhook URLs. A production endpoint URL is chosen by
 * whoever holds an API key, and the service POSTs to it from inside the operator's network,
 * so it must not reach loopback, private, link-local or cloud-metadata addresses unless the
 * operator allows it (WEBHOOK_ALLOW_PRIVATE_URLS=true). Test-mode endpoints are exempt:
 * sellers test against their own localhost.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'reserved';

function classifyV4(o: readonly number[]): AddressClass {
  const [a, b, c, d] = o as [number, number, number, number];
  // 0.0.0.0/8: "this network"; Linux connects 0.0.0.0 to the local host.
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return c === 169 && d === 254 ? 'metadata' : 'link-local';
  // Alibaba Cloud's metadata service lives inside the CGNAT range.
  if (a === 100 && b >= 64 && b <= 127) return a === 100 && b === 100 && c === 100 && d === 200 ? 'metadata' : 'cgnat';
  if (a === 192 && b === 0 && c === 0) return 'reserved';
  if (a === 198 && (b === 18 || b === 19)) return 'reserved';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved';
  return 'public';
}

function parseV4(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** Eight 16-bit groups of an IPv6 literal (zone id dropped, embedded IPv4 tail expanded). */
function parseV6(input: string): number[] | undefined {
  let s = input.replace(/%.*$/, '').toLowerCase();
  const v4Tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s);
  if (v4Tail) {
    const o = parseV4(v4Tail[1]!);
    if (!o) return undefined;
    s = `${s.slice(0, -v4Tail[1]!.length)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string | undefined) => (h ? h.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return all.map((g) => parseInt(g, 16));
}

const v4Of = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

function classifyV6(g: readonly number[]): AddressClass {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return 'unspecified';
  if (zeros(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address the packet ends up at: judge that address.
  if (zeros(5) && g[5] === 0xffff) return classifyV4(v4Of(g[6]!, g[7]!)); // ::ffff:a.b.c.d, v4-mapped
  if (zeros(6)) return classifyV4(v4Of(g[6]!, g[7]!)); // ::a.b.c.d, deprecated v4-compatible
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (g[2] === 1) return 'private'; // 64:ff9b:1::/48, local-use NAT64
    if (g.slice(2, 6).every((x) => x === 0)) return classifyV4(v4Of(g[6]!, g[7]!)); // 64:ff9b::/96, NAT64
  }
  if (g[0] === 0x2002) return classifyV4(v4Of(g[1]!, g[2]!)); // 6to4
  if (g[0] === 0x2001 && g[1] === 0) return 'reserved'; // Teredo: tunnels to an obfuscated IPv4 address
  if (g[0] === 0x100 && zeros(4)) return 'reserved'; // 100::/64 discard-only
  if ((g[0]! & 0xfe00) === 0xfc00) {
    // AWS's IPv6 instance metadata address sits in unique-local space.
    return g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254 ? 'metadata' : 'private';
  }
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'private'; // deprecated site-local
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  return 'public';
}

/** What kind of address an IPv4 or IPv6 literal is; only 'public' ones may receive production webhooks. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const v4 = parseV4(bare);
  if (v4) return classifyV4(v4);
  const v6 = bare.includes(':') ? parseV6(bare) : undefined;
  if (v6) return classifyV6(v6);
  throw new Error(`not an IP address: ${ip}`);
}

const DESCRIPTION: Record<Exclude<AddressClass, 'public'>, string> = {
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private network address',
  'link-local': 'a link-local address',
  cgnat: 'a carrier-grade NAT address',
  metadata: 'a cloud metadata address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses.map((a) => a.address)))),
  );

const refuse = (message: string) => new AppError('validation_failed', `url ${message}`, [{ path: ['url'], message }]);

/**
 * Throws a 400 naming `url` unless it is an absolute http(s) URL whose host is, and resolves
 * only to, public addresses. With `allowPrivate` only the scheme is checked. Callers: endpoint
 * creation and URL changes of production endpoints, and the delivery worker right before each
 * production delivery (DNS answers change). `resolve` is for tests.
 */
export async function assertDeliverableUrl(url: string, opts: { allowPrivate: boolean; resolve?: Resolver }): Promise<void> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse('must be an absolute http(s) URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw refuse('must be an absolute http(s) URL');
  if (opts.allowPrivate) return;
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const hint = 'production webhooks are only delivered to public addresses (the operator can allow others with WEBHOOK_ALLOW_PRIVATE_URLS=true)';
  // RFC 6761: *.localhost is loopback whatever a resolver says.
  if (host === 'localhost' || host.endsWith('.localhost')) throw refuse(`must not point to a loopback address (${host}); ${hint}`);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (opts.resolve ?? systemResolver)(host);
    } catch {
      throw refuse(`host ${host} does not resolve`);
    }
    if (!addresses.length) throw refuse(`host ${host} does not resolve`);
  }
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public') {
      const via = address === host ? '' : ` (${host} resolves to ${address})`;
      throw refuse(`must not point to ${DESCRIPTION[kind]}${via || ` (${address})`}; ${hint}`);
    }
  }
}

/**
 * A `lookup` for http.request / net.connect that refuses non-public answers at connect time,
 * so a DNS answer that changed between assertDeliverableUrl and the connection (rebinding)
 * cannot reach an internal address.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const blocked = allowPrivate ? undefined : addresses.find((a) => classifyAddress(a.address) !== 'public');
      if (blocked) {
        const refused = Object.assign(new Error(`refused to connect to ${hostname}: ${blocked.address} is not a public address`), {
          code: 'EADDRNOTPUBLIC',
        });
        return callback(refused, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The operator's setting (WEBHOOK_ALLOW_PRIVATE_URLS) for the API side; startService sets it
 * from configuration like configureWebhookSecretKey. Off until told otherwise: the safe side.
 */
let allowPrivateUrls = false;

export function configureWebhookUrlPolicy(policy: { allowPrivateUrls: boolean }): void {
  allowPrivateUrls = policy.allowPrivateUrls;
}

export function privateWebhookUrlsAllowed(): boolean {
  return allowPrivateUrls;
}
