import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { AppError, httpStatusOf } from '../../lib/errors.js';
import { assertDeliverableUrl, classifyAddress, guardedLookup } from './url-safety.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.0.5', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
  ])('IPv4 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    // IPv4-mapped and other forms that carry an IPv4 destination are judged by it.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:c0a8:101::1', 'private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
  ])('IPv6 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it('rejects what is not an address', () => {
    expect(() => classifyAddress('example.com')).toThrow(/not an IP address/);
    expect(() => classifyAddress('1:2:3')).toThrow(/not an IP address/);
    expect(() => classifyAddress('256.1.1.1')).toThrow(/not an IP address/);
  });
});

async function refusal(url: string, opts: Parameters<typeof assertDeliverableUrl>[1] = { allowPrivate: false }): Promise<AppError> {
  const err = await assertDeliverableUrl(url, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `${url} should be refused`).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('assertDeliverableUrl', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0:8080/',
    // WHATWG URL parsing turns these spellings into 127.0.0.1 before we look.
    'http://2130706433/',
    'http://0x7f.1/',
    'http://localhost:3000/webhooks',
    'http://api.localhost/',
  ])('refuses %s with a 400 naming url', async (url) => {
    const err = await refusal(url);
    expect(err.code).toBe('validation_failed');
    expect(err.kind).toBe('invalid_request');
    expect(httpStatusOf(err.kind)).toBe(400);
    expect(err.issues[0]?.path).toEqual(['url']);
    expect(err.issues[0]?.message).toMatch(/must not point to .*WEBHOOK_ALLOW_PRIVATE_URLS/);
  });

  it('refuses a hostname that resolves to a private address, naming what it resolved to', async () => {
    const resolve = async () => ['203.0.113.7', '10.1.2.3'];
    const err = await refusal('https://hooks.example.com/in', { allowPrivate: false, resolve });
    expect(err.issues[0]?.message).toContain('hooks.example.com resolves to 10.1.2.3');
  });

  it('refuses hosts that do not resolve and non-http schemes', async () => {
    const resolve = async (): Promise<string[]> => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect((await refusal('https://nowhere.invalid/', { allowPrivate: false, resolve })).issues[0]?.message).toMatch(/does not resolve/);
    expect((await refusal('ftp://8.8.8.8/x')).issues[0]?.message).toMatch(/http\(s\)/);
    expect((await refusal('file:///etc/passwd', { allowPrivate: true })).issues[0]?.message).toMatch(/http\(s\)/);
    expect((await refusal('not a url')).issues[0]?.path).toEqual(['url']);
  });

  it('accepts public addresses, and anything http(s) when private URLs are allowed', async () => {
    await expect(assertDeliverableUrl('https://93.184.216.34/hook', { allowPrivate: false })).resolves.toBeUndefined();
    await expect(assertDeliverableUrl('https://[2606:4700:4700::1111]/', { allowPrivate: false })).resolves.toBeUndefined();
    await expect(assertDeliverableUrl('https://hooks.example.com/', { allowPrivate: false, resolve: async () => ['93.184.216.34'] })).resolves.toBeUndefined();
    await expect(assertDeliverableUrl('http://127.0.0.1:9/', { allowPrivate: true })).resolves.toBeUndefined();
    await expect(assertDeliverableUrl('http://localhost/', { allowPrivate: true })).resolves.toBeUndefined();
  });
});

describe('guardedLookup', () => {
  it('refuses the connection when the name resolves to a private address, unless allowed', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const get = (allowPrivate: boolean) =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: 'localhost', port, family: 4, lookup: guardedLookup(allowPrivate) }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.statusCode)));
        });
        req.on('error', (e: NodeJS.ErrnoException) => reject(e));
        req.end();
      });
    try {
      await expect(get(false)).rejects.toMatchObject({ code: 'EADDRNOTPUBLIC' });
      await expect(get(true)).resolves.toBe('200');
    } finally {
      server.close();
    }
  });
});
