import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { closedPort } from '../webhooks/delivery-support.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A server or worker running as its own process, from the compiled bundle (built by the test run's global setup). */
export interface ServiceProcess {
  child: ChildProcess;
  /** The listeners (a server process; a worker has none). */
  prodUrl: string;
  testUrl: string;
  /** Resolves with the exit code (or the signal) when the process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** SIGTERM (or the signal given), then waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `server` (waits until /healthz answers on the test listener) or `worker` (waits for
 * its "running" line), with the environment given on top of this process's (DATABASE_URL
 * included when the suite runs on PostgreSQL). JOB_RUNNER and the rest are the caller's.
 */
export async function startServiceProcess(entry: 'server' | 'worker', env: Record<string, string | undefined>, options: { viaNpm?: boolean; readyWithinMs?: number } = {}): Promise<ServiceProcess> {
  // Ports the caller names (a restart on the same ports) or free ones.
  const port = env.PORT ? Number(env.PORT) : await closedPort();
  const testPort = env.TEST_PORT ? Number(env.TEST_PORT) : await closedPort();
  // viaNpm: exactly the README's `npm start` / `npm run worker` (npm passes signals on to the service).
  const [command, args] = options.viaNpm ? ['npm', entry === 'server' ? ['start', '--silent'] : ['run', '--silent', 'worker']] : [process.execPath, [path.join(ROOT, 'build/service', `${entry}.js`)]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), TEST_PORT: String(testPort), LOG_LEVEL: 'info', RATE_LIMIT: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const proc: ServiceProcess = {
    child,
    prodUrl: `http://127.0.0.1:${port}`,
    testUrl: `http://127.0.0.1:${testPort}`,
    exited,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const readyWithinMs = options.readyWithinMs ?? 30_000;
  const deadline = Date.now() + readyWithinMs;
  let ended = false;
  void exited.then(() => (ended = true));
  for (;;) {
    if (ended) throw new Error(`${entry} exited before it was ready:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} was not ready within ${readyWithinMs / 1000} s:\n${out}`);
    }
    if (entry === 'worker' ? out.includes('job worker running') : await healthy(proc.testUrl)) return proc;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/healthz`)).ok;
  } catch {
    return false;
  }
}
