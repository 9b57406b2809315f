/**
 * `npm run demo`: fills a new store, "Demo store", with one of each thing the service keeps,
 * in the test environment only, through the same doors a seller and a buyer use: its test API
 * key over REST for the seller's side, the hosted checkout page with a test card for the
 * buyer's (src/cli/checkout-buyer.ts). Then prints what it made and a curl command and a
 * GraphQL query that work as printed.
 *
 * Server running or not: when the configured test listener (TEST_PUBLIC_URL, else
 * http://HOST:TEST_PORT) answers /healthz as the test listener, the demo uses that server, and
 * makes the store through the CLI's store commands (over the server's administration channel
 * when it holds the embedded database; on the database itself on PostgreSQL). Otherwise it
 * opens the database itself, starts the service in this process on the configured ports,
 * does the same, and stops it: a later `npm start` serves what was printed.
 *
 * A store per run: running it again makes another "Demo store", with its own key and data.
 */
import type { StoreCommands } from '../admin/store-commands.js';
import { loadConfig, type Config } from '../config.js';
import { CUSTOMER_GRAPH_EXAMPLE } from '../graphql/example-queries.js';
import { CheckoutBrowser } from './checkout-buyer.js';

export const DEMO_STORE_NAME = 'Demo store';
export const DEMO_EMAIL = 'demo-buyer@example.com';
export const DEMO_DISCOUNT_CODE = 'DEMO10';
/** The simulated processor's card that always succeeds (src/modules/payments/simulated-processor.ts). */
const TEST_CARD = '4242 4242 4242 4242';

export interface DemoIo {
  out(text: string): void;
  err(text: string): void;
}

export interface DemoOptions {
  /**
   * The store commands to use with a running server, instead of reaching the configured
   * database (a test hands its in-process service's). Only used when a server answers.
   */
  commands?: StoreCommands;
}

/** What the demo made, and the commands it printed. */
export interface DemoResult {
  /** Whether a server already answered (false: the demo ran the service itself, and stopped it). */
  serverWasRunning: boolean;
  testUrl: string;
  store: { id: string; name: string };
  testKey: string;
  products: { oneTime: string; recurring: string; free: string };
  discount: { id: string; code: string };
  webhookEndpoint: string;
  customer: { id: string; email: string };
  orders: string[];
  subscription: string;
  license: { id: string; key: string };
  transactions: string[];
  /** Shell commands, exactly as printed. */
  commands: { customer: string; graph: string; listen: string };
  /** The GraphQL query printed for GraphiQL. */
  graphQuery: string;
}

/** A problem the demo explains in one message (no stack trace). */
export class DemoError extends Error {
  override name = 'DemoError';
}

/** POSIX shell quoting: bare when nothing in it is special, else in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-.,:/@%+=]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Where the configured test listener is reached from this machine. */
export function configuredTestUrl(config: Config): string {
  if (config.testPublicUrl) return config.testPublicUrl;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '[::1]' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.testPort}`;
}

/** Whether a test listener of this service answers at `url`. */
async function testListenerAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3_000) });
    if (!res.ok) return false;
    const body = (await res.json()) as { status?: string; mode?: string };
    if (body.status === 'ok' && body.mode === 'prod') {
      throw new DemoError(`${url} is a production listener; the demo works in the test environment only. Point TEST_PORT (or TEST_PUBLIC_URL) at the test listener.`);
    }
    return body.status === 'ok' && body.mode === 'test';
  } catch (err) {
    if (err instanceof DemoError) throw err;
    return false;
  }
}

/** The compact form of the customer graph query that the curl command sends. */
export function compactQuery(query: string): string {
  return query
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}

type Json = Record<string, any>;

/** The test key's REST client: JSON in, JSON out, a DemoError naming the call on anything but 2xx. */
function restClient(baseUrl: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new DemoError(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as Json;
  };
}

const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

/** Makes the demo data in the store whose test key is `key`, through the service at `testUrl`. */
async function populate(testUrl: string, key: string) {
  const call = restClient(testUrl, key);
  try {
    await call('GET', '/v1/products/search');
  } catch (err) {
    throw new DemoError(
      `the server at ${testUrl} refused the new store's test key (${(err as Error).message}). ` +
        'It probably uses another database than the demo: run the demo with the server\'s DATA_DIR or DATABASE_URL.',
    );
  }
  const oneTime = await call('POST', '/v1/products', {
    name: 'Demo App',
    description: 'A desktop app sold once, with a license key for 3 devices.',
    price: 4900,
    currency: 'USD',
    billing_type: 'onetime',
    features: [{ type: 'licenseKey', description: 'License key (3 activations)', license_key: { activation_limit: 3 } }],
  });
  const recurring = await call('POST', '/v1/products', {
    name: 'Demo Pro',
    description: 'The monthly plan.',
    price: 1500,
    currency: 'USD',
    billing_type: 'recurring',
    billing_period: 'every-month',
  });
  const free = await call('POST', '/v1/products', { name: 'Demo Starter', description: 'The free tier.', price: 0, currency: 'USD', billing_type: 'onetime' });
  const discount = await call('POST', '/v1/discounts', { name: 'Demo: 10% off', code: DEMO_DISCOUNT_CODE, type: 'percentage', percentage: 10, duration: 'forever' });
  const endpoint = await call('POST', '/v1/webhooks', { name: 'Demo (forwarded by cli listen)', delivery_mode: 'cli' });

  // The buyer's side: a checkout for the customer's e-mail, then the hosted page, paid with the test card.
  const expiry = `12/${String((new Date().getUTCFullYear() + 5) % 100).padStart(2, '0')}`;
  const buy = async (productId: string, extra: Json = {}) => {
    const checkout = await call('POST', '/v1/checkouts', { product_id: productId, customer: { email: DEMO_EMAIL }, ...extra });
    const paid = await new CheckoutBrowser(testUrl).pay(checkout.checkout_url as string, {
      email: DEMO_EMAIL,
      name: 'Demo Buyer',
      country: 'US',
      card_number: TEST_CARD,
      card_expiry: expiry,
      card_cvc: '123',
    });
    if (paid.status !== 303) throw new DemoError(`the checkout page of ${checkout.id} answered ${paid.status} to the payment with the test card`);
    const done = await call('GET', `/v1/checkouts?checkout_id=${encodeURIComponent(checkout.id as string)}`);
    if (done.status !== 'completed') throw new DemoError(`checkout ${checkout.id} is ${done.status} after the payment`);
    return done;
  };
  const purchase = await buy(oneTime.id, { discount_code: DEMO_DISCOUNT_CODE });
  const subscribed = await buy(recurring.id);

  const customer = await call('GET', `/v1/customers?email=${encodeURIComponent(DEMO_EMAIL)}`);
  const orders = (await call('GET', `/v1/customers/${customer.id}/orders?page_size=10`)).items as Json[];
  const transactions = (await call('GET', `/v1/transactions/search?customer_id=${customer.id}&page_size=10`)).items as Json[];
  const license = (purchase.license_keys as Json[] | undefined)?.[0];
  const subscription = subscribed.subscription as Json | undefined;
  if (!license) throw new DemoError(`the purchase ${purchase.id} issued no license key`);
  if (!subscription) throw new DemoError(`the checkout ${subscribed.id} made no subscription`);
  return { oneTime, recurring, free, discount, endpoint, customer, orders, transactions, license, subscription, purchase, subscribed };
}

/** The demo, printed on `io`; answers what it made. Throws DemoError (and others) on failure. */
export async function runDemo(io: DemoIo, env: NodeJS.ProcessEnv, options: DemoOptions = {}): Promise<DemoResult> {
  const config = loadConfig(env);
  const probeUrl = configuredTestUrl(config);
  const running = await testListenerAnswers(probeUrl);

  if (running) {
    let commands = options.commands;
    let close = async () => {};
    if (!commands) {
      const { openStoreAccess } = await import('../cli.js');
      const access = await openStoreAccess(config);
      close = () => access.close();
      if (access.kind === 'direct' && access.db.kind === 'embedded') {
        await close();
        throw new DemoError(
          `A server answers at ${probeUrl}, but it does not hold the embedded database in ${config.dataDir} (the demo could open it). ` +
            'Run the demo with that server\'s DATA_DIR (or DATABASE_URL), or stop the server.',
        );
      }
      commands = access.commands;
    }
    try {
      const store = await commands.createStore(DEMO_STORE_NAME);
      return await report(io, { serverWasRunning: true, testUrl: probeUrl, store, data: await populate(probeUrl, store.test_api_key) });
    } finally {
      await close();
    }
  }

  if (options.commands) throw new DemoError(`no server answers at ${probeUrl}`);
  const { openStoreAccess } = await import('../cli.js');
  const access = await openStoreAccess(config);
  if (access.kind === 'remote') {
    await access.close();
    throw new DemoError(
      `A server holds the embedded database in ${config.dataDir} but its test listener does not answer at ${probeUrl}. ` +
        'Set HOST and TEST_PORT (or TEST_PUBLIC_URL) as that server has them.',
    );
  }
  try {
    const [{ startService }, { createLogger }, { announceFirstStart }] = await Promise.all([
      import('../service.js'),
      import('../logger.js'),
      import('../admin/first-start.js'),
    ]);
    // Quiet unless asked: the demo's own output is what the reader wants.
    const logger = createLogger(env.LOG_LEVEL || 'warn');
    const service = await startService({ config, logger, db: access.db });
    try {
      const testUrl = config.testPublicUrl ?? service.testUrl;
      // The service's first start on this database, like `npm start` (its keys printed once).
      await announceFirstStart(access.db, { test: testUrl, prod: config.publicUrl ?? service.prodUrl }, logger, (text) => io.out(text.trimEnd()));
      const store = await access.commands.createStore(DEMO_STORE_NAME);
      return await report(io, { serverWasRunning: false, testUrl, store, data: await populate(testUrl, store.test_api_key) });
    } finally {
      await service.close();
    }
  } finally {
    await access.close();
  }
}

/** Prints what was made and the commands to look at it; answers the result. */
function report(
  io: DemoIo,
  run: { serverWasRunning: boolean; testUrl: string; store: { id: string; name: string; test_api_key: string }; data: Awaited<ReturnType<typeof populate>> },
): DemoResult {
  const { testUrl, store, data } = run;
  const key = store.test_api_key;
  const keyHeader = shellQuote(`x-api-key: ${key}`);
  const customerCommand = `curl -s -H ${keyHeader} ${shellQuote(`${testUrl}/v1/customers?email=${DEMO_EMAIL}`)}`;
  const graphBody = JSON.stringify({ query: compactQuery(CUSTOMER_GRAPH_EXAMPLE) });
  const graphCommand = `curl -s -H ${keyHeader} -H 'content-type: application/json' --data ${shellQuote(graphBody)} ${shellQuote(`${testUrl}/graphql`)}`;
  const listenCommand = `npm run --silent cli -- listen --forward-to http://127.0.0.1:3000/webhooks --url ${shellQuote(testUrl)} --api-key ${shellQuote(key)} --endpoint ${shellQuote(data.endpoint.id)}`;
  const orderLine = (o: Json) => `${o.id} (${o.product === data.oneTime.id ? data.oneTime.name : data.recurring.name}, ${o.status}, ${money(o.amount_paid, o.currency)})`;
  const pad = (label: string) => `  ${label.padEnd(18)}`;
  const lines = [
    '',
    `Demo store: ${store.id} ("${store.name}"), test environment only.`,
    `Everything below lives in the test environment: the key is a test key, it works on the test listener (${testUrl}) only,`,
    `and the purchases were paid on the hosted checkout page with the test card ${TEST_CARD} (no money moves).`,
    '',
    `${pad('test key')}${key}   (shown once, stored hashed; the store's production key is not used by the demo)`,
    `${pad('products')}${data.oneTime.id}  ${data.oneTime.name}: one-time, ${money(data.oneTime.price, data.oneTime.currency)}, with a license key`,
    `${pad('')}${data.recurring.id}  ${data.recurring.name}: monthly, ${money(data.recurring.price, data.recurring.currency)}`,
    `${pad('')}${data.free.id}  ${data.free.name}: free`,
    `${pad('discount')}${data.discount.id}  code ${data.discount.code}, 10% off (used on the one-time purchase)`,
    `${pad('webhook endpoint')}${data.endpoint.id}  cli mode: its events wait until \`cli listen\` pulls them`,
    `${pad('customer')}${data.customer.id}  ${data.customer.email}`,
    ...data.orders.map((o, i) => `${pad(i === 0 ? 'orders' : '')}${orderLine(o)}`),
    `${pad('subscription')}${data.subscription.id}  ${data.subscription.status}, ${data.recurring.name}`,
    `${pad('license')}${data.license.id}  ${data.license.key}`,
    `${pad('transactions')}${data.transactions.map((t) => `${t.id} (${t.type}, ${t.status})`).join(', ')}`,
    '',
    'The customer over REST:',
    '',
    `  ${customerCommand}`,
    '',
    'The customer graph over GraphQL (customers -> subscriptions -> transactions, orders, licenses):',
    '',
    `  ${graphCommand}`,
    '',
    `Or in GraphiQL: open ${testUrl}/graphql (it opens with this query), put the test key above in the`,
    'x-api-key header, and run:',
    '',
    CUSTOMER_GRAPH_EXAMPLE.trimEnd().replace(/^/gm, '  '),
    '',
    `Forward the webhook endpoint's events (checkout.completed, subscription.active, …) to a server on this machine:`,
    '',
    `  ${listenCommand}`,
    '',
    run.serverWasRunning
      ? `Made on the server running at ${testUrl}.`
      : `The server is not running: the demo started the service for this run and stopped it. \`npm start\` serves what was printed above (test listener ${testUrl}).`,
  ];
  io.out(lines.join('\n'));
  return {
    serverWasRunning: run.serverWasRunning,
    testUrl,
    store: { id: store.id, name: store.name },
    testKey: key,
    products: { oneTime: data.oneTime.id, recurring: data.recurring.id, free: data.free.id },
    discount: { id: data.discount.id, code: data.discount.code },
    webhookEndpoint: data.endpoint.id,
    customer: { id: data.customer.id, email: data.customer.email },
    orders: data.orders.map((o) => o.id as string),
    subscription: data.subscription.id,
    license: { id: data.license.id, key: data.license.key },
    transactions: data.transactions.map((t) => t.id as string),
    commands: { customer: customerCommand, graph: graphCommand, listen: listenCommand },
    graphQuery: CUSTOMER_GRAPH_EXAMPLE,
  };
}

/** The entry: 0 done, 1 failed (said why on standard error). */
export async function main(io: DemoIo = { out: (t) => console.log(t), err: (t) => console.error(t) }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    await runDemo(io, env);
    return 0;
  } catch (err) {
    const { DataDirInUseError } = await import('../db/data-dir-lock.js');
    const { AdminCommandError } = await import('../admin/client.js');
    if (err instanceof DemoError || err instanceof DataDirInUseError || err instanceof AdminCommandError) io.err(`demo: ${err.message}`);
    else io.err(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then((code) => process.exit(code));
}
