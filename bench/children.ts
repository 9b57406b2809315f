/**
 * Child processes of the benchmark: the service, its CLI and the baseline server. Every
 * process runs as `node --import tsx <script>` so that it is ONE process with one pid: the
 * tsx binary would fork a second node process, and a signal to the wrapper does not always
 * reach the real server, which would then keep its ports (and the embedded data-dir lock).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

/** The project root: scripts are given relative to it, like `npm run` would. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Variables that choose a database or address; removed so the developer's shell cannot leak into a run. */
const SERVICE_VARS = ['DATABASE_URL', 'DATA_DIR', 'PORT', 'TEST_PORT', 'HOST', 'PUBLIC_URL', 'TEST_PUBLIC_URL', 'LOG_LEVEL'];

/** Processes still running; killed on any exit of the benchmark (see killAllNow). */
const live = new Set<ChildProcess>();

/** Enough of a child's output to explain a failure without keeping megabytes of logs. */
const OUTPUT_LIMIT = 20_000;

export interface Child {
  name: string;
  proc: ChildProcess;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<string>;
  /** The tail of stdout and stderr, for error messages. */
  output(): string;
}

export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of SERVICE_VARS) delete env[name];
  return { ...env, ...vars };
}

export function startTs(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  // BENCH_PROFILE=DIR: every child writes a CPU profile into DIR when it exits (node --cpu-prof).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  let tail = '';
  // Always drain both pipes: a child blocked on a full pipe would look like a slow server.
  const collect = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-OUTPUT_LIMIT);
  };
  proc.stdout?.on('data', collect);
  proc.stderr?.on('data', collect);
  const exited = new Promise<string>((resolve) => {
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      resolve(signal ?? String(code));
    });
    proc.once('error', (err) => {
      live.delete(proc);
      tail += `\n${err.message}`;
      resolve('spawn error');
    });
  });
  return { name, proc, exited, output: () => tail };
}

/** Runs a script to completion and returns its stdout; stderr is kept apart so JSON output stays parseable. */
export async function runTs(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  // BENCH_PROFILE=DIR: every child writes a CPU profile into DIR when it exits (node --cpu-prof).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const how = await new Promise<string>((resolve, reject) => {
    proc.once('error', reject);
    proc.once('close', (code, signal) => resolve(signal ?? String(code)));
  }).finally(() => live.delete(proc));
  if (how !== '0') throw new Error(`${name} exited with ${how}:\n${stderr || stdout}`);
  return stdout;
}

/** SIGTERM lets the service close its database (the embedded one flushes and unlocks); SIGKILL if it hangs. */
export async function stopChild(child: Child, graceMs = 5_000): Promise<void> {
  if (!live.has(child.proc)) return;
  child.proc.kill('SIGTERM');
  const timer = sleep(graceMs).then(() => 'timeout');
  if ((await Promise.race([child.exited, timer])) === 'timeout') {
    child.proc.kill('SIGKILL');
    await child.exited;
  }
}

/** Last resort from a synchronous 'exit' handler: no waiting is possible there. */
export function killAllNow(): void {
  for (const proc of live) proc.kill('SIGKILL');
  live.clear();
}

/**
 * Ports that were free a moment ago: the OS picks each for a listener on port 0. All
 * listeners stay open until every port is known, so the same port cannot come back twice.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<net.Server>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** Polls `url` until it answers 200; fails early if the process dies (a port clash, a bad migration). */
export async function waitForHealthy(child: Child, url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let died: string | undefined;
  void child.exited.then((how) => (died = how));
  while (Date.now() < deadline) {
    if (died !== undefined) throw new Error(`${child.name} exited (${died}) before ${url} answered:\n${child.output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await sleep(100);
  }
  throw new Error(`${child.name} did not answer 200 on ${url} within ${timeoutMs / 1000} s:\n${child.output()}`);
}
