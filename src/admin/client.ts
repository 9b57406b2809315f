import http from 'node:http';
import type { StoreCommands } from './store-commands.js';

/** A command the running server refused (unknown store, bad input): its message, as the CLI shows it. */
export class AdminCommandError extends Error {}

function call(socketPath: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ socketPath, method, path, headers: text ? { 'content-type': 'application/json' } : {} }, (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (answer += d));
      res.on('end', () => {
        try {
          const parsed = JSON.parse(answer) as { error?: string };
          if (res.statusCode === 200) resolve(parsed);
          else reject(new AdminCommandError(parsed.error ?? `the server answered ${res.statusCode}`));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Whether a server answers on the socket. */
export async function adminChannelAnswers(socketPath: string): Promise<boolean> {
  try {
    await call(socketPath, 'GET', '/ping');
    return true;
  } catch {
    return false;
  }
}

/** The store commands, asked of the running server over its channel. */
export function remoteStoreCommands(socketPath: string): StoreCommands {
  return {
    createStore: (name) => call(socketPath, 'POST', '/stores', { name }) as ReturnType<StoreCommands['createStore']>,
    listStores: () => call(socketPath, 'GET', '/stores') as ReturnType<StoreCommands['listStores']>,
    createKey: (store, mode) => call(socketPath, 'POST', '/keys', { store, mode }) as ReturnType<StoreCommands['createKey']>,
    revokeKey: (key) => call(socketPath, 'POST', '/keys/revoke', { key }) as ReturnType<StoreCommands['revokeKey']>,
    migrate: async () => ((await call(socketPath, 'POST', '/migrate')) as { applied: string[] }).applied,
  };
}
