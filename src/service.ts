import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSchema } from './graphql/yoga.js';
import { buildApp } from './app.js';
import { startCaches, type ServiceCaches } from './caches.js';
import type { Config } from './config.js';
import type { ServiceEnv } from './context.js';
import { purgeExpiredIdempotencyRecords } from './core/idempotency.js';
import { databaseOptions, openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { dataScope } from './db/tenant.js';
import type { Mode } from './generated/prisma/enums.js';
import type { JobRunner } from './jobs/job-runner.js';
import { createJobRunner } from './jobs/runner.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createRateLimits } from './lib/rate-limit.js';
import type { Logger } from './logger.js';
import { ApiKeyAuthenticator } from './modules/stores/api-keys.js';
import { configureWebhookSecretKey } from './modules/webhooks/endpoint-secrets.js';
import { configureWebhookUrlPolicy } from './modules/webhooks/url-safety.js';
import { configureDunningSchedule } from './modules/subscriptions/renewals.js';
import { readinessCheck, type Readiness } from './readiness.js';

const HOUR_MS = 60 * 60 * 1000;

export interface RunningService {
  db: Database;
  prodUrl: string;
  testUrl: string;
  /** The job runner of this process, when it runs one (JOB_RUNNER is not off). */
  jobs?: JobRunner;
  /** The environment each listener serves. */
  envs: Record<Mode, ServiceEnv>;
  /** The two HTTP listeners. */
  servers: Record<Mode, Server>;
  /** Builds the GraphQL schema now, in the background (the server process, once it serves). */
  warmUp(): void;
  /** What `/readyz` answers. */
  readiness(): Promise<Readiness>;
  /** Stops honouring a revoked key in this process at once, instead of when its cached lookup expires. */
  forgetApiKey(apiKeyId: string): void;
  /**
   * Graceful stop: the listeners stop accepting and answer what they are still given with
   * `Connection: close`, requests in flight and the job round under way finish (for
   * `deadlineMs` at most, default SHUTDOWN_TIMEOUT_MS), claims whose work did not finish are
   * handed back, then everything closes.
   */
  close(deadlineMs?: number): Promise<void>;
}

/**
 * Keeps a listener's requests in flight and, once draining, tells each client to close its
 * connection after the answer, so no client sends another request on a socket about to close.
 */
function trackRequests(server: Server, draining: () => boolean) {
  const inFlight = new Set<ServerResponse>();
  let idle: (() => void) | undefined;
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    if (draining()) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) idle?.();
    });
  });
  return {
    /** Answers still to be written say `Connection: close`; resolves when none is in flight, or after `ms` (false). */
    drain(ms: number): Promise<boolean> {
      for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      if (inFlight.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), ms);
        idle = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
    },
  };
}

/**
 * Closes the listening socket, keeping the open connections: Node's close() also drops idle
 * keep-alive connections at once, and a client sending its next request on one at that moment
 * gets a reset instead of an answer. Kept, such a request is answered with `Connection: close`
 * (see trackRequests); what is still open after the drain is closed then. Resolves when every
 * connection has ended.
 */
function stopAccepting(server: Server): Promise<void> {
  const closeIdle = server.closeIdleConnections;
  server.closeIdleConnections = () => {};
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections = closeIdle;
  return closed;
}

function listen(host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    // Idle keep-alive connections outlive the clients' and load balancers' own timeouts, so a
    // client never sends a request on a socket the server is closing at that moment.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    server.once('listening', () => resolve(server));
    server.once('error', reject);
    server.listen(port, host);
  });
}

function addressOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  const host = address === '0.0.0.0' || address === '::' ? 'localhost' : address.includes(':') ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/**
 * Opens the database, applies pending migrations and serves the two listeners. The caller
 * may pass an already open database (tests) and a clock.
 */
export async function startService(options: { config: Config; logger: Logger; db?: Database; clock?: Clock }): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  configureWebhookSecretKey(config.webhookSecretKey);
  configureWebhookUrlPolicy({ allowPrivateUrls: config.allowPrivateWebhookUrls });
  configureDunningSchedule(config.dunningRetryDays);
  const db = options.db ?? (await openDatabase(databaseOptions(config)));
  const servers: Server[] = [];
  let stopCaches = async () => {};
  const limits = await createRateLimits(config.rateLimits, logger);
  let envs: Record<Mode, ServiceEnv>;
  let draining = false;
  let readiness!: () => Promise<Readiness>;
  let tracked: ReturnType<typeof trackRequests>[] = [];
  let authenticator!: ApiKeyAuthenticator;
  // The runner exists in every server: with JOB_RUNNER=off it runs no rounds of its own, but a
  // test clock's advance still runs that store's due work at once.
  const jobs = createJobRunner({ db: db.prisma, clock, logger, config, envFor: (mode) => envs[mode] });
  try {
    const applied = await migrate(db);
    if (applied.length) logger.info({ migrations: applied }, 'applied migrations');
    const started = await startCaches(db, { products: config.readCache });
    const caches: ServiceCaches = started.caches;
    stopCaches = started.stop;
    authenticator = new ApiKeyAuthenticator(db.prisma);
    // Bind first, so links can name the real port when the port was chosen by the system (0).
    servers.push(await listen(config.host, config.port));
    servers.push(await listen(config.host, config.testPort));
    const [prod, test] = servers as [Server, Server];
    const data = dataScope(db.prisma);
    envs = {
      prod: { data, mode: 'prod', clock, caches, baseUrl: config.publicUrl ?? addressOf(prod) },
      test: { data, mode: 'test', clock, caches, baseUrl: config.testPublicUrl ?? addressOf(test), runDueWork: (only) => jobs.runDueWork(only, ['jobs']) },
    };
    readiness = readinessCheck({ db, jobs: config.jobRunner ? jobs : undefined, draining: () => draining });
    tracked = servers.map((server) => trackRequests(server, () => draining));
    prod.on('request', buildApp({ env: envs.prod, config, logger, authenticator, limits, readiness }));
    test.on('request', buildApp({ env: envs.test, config, logger, authenticator, limits, readiness }));
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    await stopCaches();
    await limits.close();
    if (!options.db) await db.close();
    throw err;
  }
  const purge = setInterval(() => {
    purgeExpiredIdempotencyRecords(db.prisma, clock.now()).catch((err: unknown) => logger.warn({ err }, 'idempotency purge failed'));
  }, HOUR_MS).unref();
  // In-process by default; JOB_RUNNER=off leaves jobs to `npm run worker` processes.
  if (config.jobRunner) jobs.start();
  return {
    db,
    prodUrl: addressOf(servers[0]!),
    testUrl: addressOf(servers[1]!),
    jobs: config.jobRunner ? jobs : undefined,
    envs,
    servers: { prod: servers[0]!, test: servers[1]! },
    warmUp() {
      // Off the start-up path: a GraphQL request before it builds the schema itself.
      void loadSchema().catch((err: unknown) => logger.error({ err }, 'the GraphQL schema failed to build'));
    },
    readiness: () => readiness(),
    forgetApiKey: (apiKeyId) => authenticator.forget(apiKeyId),
    async close(deadlineMs = config.shutdownTimeoutMs) {
      if (draining) return;
      draining = true;
      clearInterval(purge);
      const closed = servers.map((s) => stopAccepting(s));
      const [requestsDone] = await Promise.all([Promise.all(tracked.map((t) => t.drain(deadlineMs))), jobs.stop(deadlineMs)]);
      if (requestsDone.includes(false)) logger.warn({ deadlineMs }, 'requests still in flight at the shutdown deadline; closing their connections');
      for (const s of servers) s.closeAllConnections();
      await Promise.all(closed);
      await stopCaches();
      await limits.close();
      if (!options.db) await db.close();
    },
  };
}
