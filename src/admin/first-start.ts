import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { createDefaultStore, type CreatedStore } from '../modules/stores/stores.service.js';

/** What the first start prints: the default store's keys and where to use them, once. */
export function firstStartBanner(store: CreatedStore, urls: { test: string; prod: string }): string {
  const rule = '─'.repeat(78);
  return [
    rule,
    `First start: created "${store.name}" (${store.id}) with one API key per environment.`,
    '',
    `  test key        ${store.test_api_key}`,
    `  production key  ${store.prod_api_key}`,
    '',
    `  test listener   ${urls.test}   (test keys; test cards, a test clock)`,
    `  production      ${urls.prod}`,
    `  GraphiQL        ${urls.test}/graphql   (put the test key in the x-api-key header)`,
    `  API reference   ${urls.test}/docs`,
    '',
    `  try: curl -H "x-api-key: ${store.test_api_key}" ${urls.test}/v1/products/search`,
    '',
    'These keys are stored hashed and will not be shown again: keep them now.',
    'More stores and keys: npm run --silent cli -- stores create --name NAME (works while the server runs).',
    rule,
  ].join('\n');
}

/**
 * On a service with no store at all, creates the default store and prints its keys to the
 * console (standard output, not the log: the keys never reach a log file or a log level).
 * Later starts find a store and print nothing.
 */
export async function announceFirstStart(db: Database, urls: { test: string; prod: string }, logger: Logger, print: (text: string) => void): Promise<CreatedStore | null> {
  const store = await createDefaultStore(db.prisma);
  if (!store) return null;
  logger.info({ store: store.id }, 'first start: created the default store (its keys are printed once, on the console)');
  print(`${firstStartBanner(store, urls)}\n`);
  return store;
}
