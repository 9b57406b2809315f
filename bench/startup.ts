/**
 * Start-up: `npm start`, exactly as the README says, on an embedded data directory that is
 * already migrated, timed from the spawn to the first 200 of /healthz (polled every 5 ms).
 * The process group is stopped after each start, so the next finds the data directory free.
 */
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, freePorts, ROOT } from './children.js';

export interface StartupBench {
  /** Milliseconds from spawn to healthy, per start. */
  startsMs: number[];
  problems: string[];
}

const STARTS = 5;

export async function benchStartup(dataDir: string, defer: (name: string, run: () => Promise<void>) => void): Promise<StartupBench> {
  const startsMs: number[] = [];
  const problems: string[] = [];
  console.log(`start-up: npm start on the migrated embedded database, ${STARTS} times`);
  for (let i = 0; i < STARTS; i++) {
    const [port, testPort] = (await freePorts(2)) as [number, number];
    const began = performance.now();
    // Its own process group: npm, the shell and node stop together.
    const proc = spawn('npm', ['start', '--silent'], { cwd: ROOT, detached: true, stdio: 'ignore', env: childEnv({ DATA_DIR: dataDir, PORT: String(port), TEST_PORT: String(testPort), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }) });
    const stop = async () => {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        return;
      }
      for (let waited = 0; waited < 5_000 && proc.exitCode === null && proc.signalCode === null; waited += 20) await sleep(20);
      if (proc.exitCode === null && proc.signalCode === null) process.kill(-proc.pid!, 'SIGKILL');
    };
    defer(`stop start-up run ${i}`, stop);
    let healthy = false;
    while (performance.now() - began < 30_000 && proc.exitCode === null) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.arrayBuffer();
        if (res.status === 200) {
          healthy = true;
          break;
        }
      } catch {
        // Not listening yet.
      }
      await sleep(5);
    }
    const ms = performance.now() - began;
    await stop();
    // Wait for the process to be gone: the data directory is locked by the running one.
    while (proc.exitCode === null && proc.signalCode === null) await sleep(20);
    if (!healthy) problems.push(`start-up run ${i}: not healthy within 30 s`);
    else startsMs.push(ms);
  }
  return { startsMs, problems };
}

export function reportStartup(r: StartupBench): number {
  const sorted = [...r.startsMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(`\nStart-up, \`npm start\` to a 200 from /healthz on a migrated embedded database: ${r.startsMs.map((m) => m.toFixed(0)).join(', ')} ms (median ${median.toFixed(0)} ms)`);
  console.log(`target: under 1 s: ${median < 1_000 ? 'met' : 'NOT met'}`);
  for (const p of r.problems) console.error(`BROKEN: ${p}`);
  return r.problems.length ? 1 : 0;
}
