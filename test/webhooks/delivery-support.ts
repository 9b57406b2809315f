import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dataScope } from '../../src/db/tenant.js';
import type { PrismaClient } from '../../src/generated/prisma/client.js';
import { newId } from '../../src/lib/ids.js';
import { sealSigningSecret } from '../../src/modules/webhooks/endpoint-secrets.js';
import { generateSigningSecret } from '../../src/modules/webhooks/signing.js';

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  /** Real time of arrival. */
  at: number;
}

/** What the receiver does with the n-th request (0-based): answer, or never answer. */
export type Behaviour = (n: number, req: Received) => { status: number; body?: string } | 'hang';

/** A seller's webhook receiver on 127.0.0.1 that keeps every request it gets. */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = () => ({ status: 200, body: 'ok' });
  private constructor(private readonly server: Server, readonly port: number) {}

  static async start(port = 0): Promise<Receiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const receiver = new Receiver(server, (server.address() as AddressInfo).port);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const got: Received = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() };
        const n = receiver.received.push(got) - 1;
        const answer = receiver.behaviour(n, got);
        if (answer === 'hang') return;
        res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? '');
      });
    });
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/webhooks`;
  }

  /** Waits (real time) until `predicate` holds for what arrived. */
  async waitFor(predicate: (received: Received[]) => boolean, timeoutMs = 20_000): Promise<void> {
    await waitUntil(() => predicate(this.received), { timeoutMs, what: () => `receiver: condition not met; got ${this.received.length} requests` });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/**
 * An endpoint written straight to the database, as the endpoints API stores one (tenant
 * columns given explicitly, as direct inserts must); returns its id and secret.
 */
export async function insertEndpoint(
  db: PrismaClient,
  values: { storeId: string; mode: 'test' | 'prod'; url: string; events: string[]; deliveryMode?: 'http' | 'cli'; enabled?: boolean },
): Promise<{ id: string; secret: string }> {
  const secret = generateSigningSecret();
  const id = newId('webhook');
  await db.webhookEndpoint.create({
    data: {
      id,
      storeId: values.storeId,
      mode: values.mode,
      url: values.url,
      events: values.events,
      deliveryMode: values.deliveryMode ?? 'http',
      enabled: values.enabled ?? true,
      secretCiphertext: await sealSigningSecret(dataScope(db), values.mode, secret),
    },
  });
  return { id, secret };
}

/**
 * Polls `condition` (real time) until it holds, instead of sleeping a fixed time; fails after
 * `timeoutMs` naming `what`.
 */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; intervalMs?: number; what?: string | (() => string) } = {},
): Promise<void> {
  const { timeoutMs = 20_000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'condition not met');
      throw new Error(`${what} within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A port nothing listens on (bound a moment ago, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
