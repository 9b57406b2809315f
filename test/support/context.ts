import type { RequestContext } from '../../src/context.js';
import { execute, type Operation } from '../../src/core/operation.js';
import type { Database } from '../../src/db/database.js';
import { dataScope } from '../../src/db/tenant.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createStore } from '../../src/modules/stores/stores.service.js';

export type TestContext = RequestContext & { clock: ManualClock };

/** A request context of a new store, for calling core services directly as the transports do after authentication. */
export async function storeContext(db: Database, mode: 'test' | 'prod' = 'test', clock = new ManualClock(Date.UTC(2026, 0, 15, 12))): Promise<TestContext> {
  const store = await createStore(db.prisma, { name: 'Service test store' });
  return { data: dataScope(db.prisma), storeId: store.id, mode, clock, traceId: 'test-trace', source: 'test', baseUrl: 'http://billing.test' };
}

/** The same store in the other environment (or another store): for isolation checks. */
export function otherContext(ctx: TestContext, change: Partial<Pick<RequestContext, 'storeId' | 'mode'>>): TestContext {
  return { ...ctx, ...change };
}

/** Runs an operation as a transport would (input validated by its schema, writes in one transaction) and returns the service's result. */
export async function perform<In, Out>(ctx: RequestContext, op: Operation<In, Out>, raw: unknown): Promise<Out> {
  const out = await execute(ctx, op, raw);
  if (out.result === undefined) throw new Error(`${op.name} was replayed; perform() wants a fresh result`);
  return out.result;
}

/** A CLI command run in this process (no start-up cost): its exit code and what it wrote. */
export async function runCommand(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const { main } = await import('../../src/cli.js');
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { out: (t) => void (stdout += `${t}\n`), err: (t) => void (stderr += `${t}\n`), env });
  return { code, stdout, stderr };
}
