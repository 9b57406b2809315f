import { chmodSync, existsSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import path from 'node:path';
import { AppError, httpStatusOf } from '../lib/errors.js';
import type { Logger } from '../logger.js';
import type { StoreCommands } from './store-commands.js';

/**
 * The local administration channel of a server on the embedded database. The database
 * belongs to the server's process while it runs, so the CLI's store and key commands ask the
 * server instead: HTTP over a Unix socket in DATA_DIR that only the machine user who runs the
 * service can open (created 0600, the data directory's owner). Nothing listens on a network
 * port; on PostgreSQL the CLI writes to the database itself and no channel is opened.
 */
export const ADMIN_SOCKET = 'admin.sock';

export const adminSocketPath = (dataDir: string) => path.join(dataDir, ADMIN_SOCKET);

type Route = (body: Record<string, unknown>) => Promise<unknown>;

function routes(commands: StoreCommands): Record<string, Route> {
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    'GET /ping': async () => ({ ok: true }),
    'POST /stores': (b) => commands.createStore(text(b.name)),
    'GET /stores': () => commands.listStores(),
    'POST /keys': (b) => {
      const mode = b.mode === 'test' || b.mode === 'prod' ? b.mode : undefined;
      if (!text(b.store) || !mode) throw new AppError('validation_failed', 'store and mode (test or prod) are required');
      return commands.createKey(text(b.store)!, mode);
    },
    'POST /keys/revoke': (b) => {
      if (!text(b.key)) throw new AppError('validation_failed', 'key is required');
      return commands.revokeKey(text(b.key)!);
    },
    'POST /migrate': async () => ({ applied: await commands.migrate() }),
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 64 * 1024) throw new AppError('payload_too_large', 'request too large');
  }
  if (!text) return {};
  const parsed: unknown = JSON.parse(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

export interface AdminChannel {
  path: string;
  close(): Promise<void>;
}

/** Serves the store commands on DATA_DIR/admin.sock until closed. */
export async function openAdminChannel(dataDir: string, commands: StoreCommands, logger: Logger): Promise<AdminChannel> {
  const socket = adminSocketPath(dataDir);
  const table = routes(commands);
  const server: Server = createServer((req, res) => {
    const route = table[`${req.method} ${req.url}`];
    const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (!route) return void answer(404, { error: `no command ${req.method} ${req.url}` });
    readJson(req)
      .then(route)
      .then((result) => answer(200, result))
      .catch((err: unknown) => {
        if (err instanceof AppError) return answer(httpStatusOf(err.kind), { error: err.messages().join('\n'), code: err.code });
        logger.error({ err }, 'admin command failed');
        answer(500, { error: 'the command failed; see the server log' });
      });
  });
  // Our lock on the data directory is held, so a socket file left here is a dead server's.
  if (existsSync(socket)) rmSync(socket, { force: true });
  // The socket is created with the umask's permissions: none for group and others from the start.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(socket, 0o600);
  return {
    path: socket,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
