/**
 * Tenant-bound data access: the one way services reach tenant tables.
 *
 * A request context carries a `DataScope`: the database and, inside `inTransaction`, the open
 * transaction. `db(ctx)` hands out a Prisma client bound to the context's store and
 * environment: every read and write of a tenant table (a model with `storeId` and `mode`,
 * child tables included) gets both added, in nested creates too. A row of another store or
 * environment is therefore not found, never updated and never created. Raw SQL is not on the
 * handed-out client; the few statements Prisma cannot express (row locks, notifications) are
 * helpers here that add the same filter.
 */
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import type { Mode } from '../generated/prisma/enums.js';
import { getDatamodel } from '../generated/pothos-types.js';

const ROOT = Symbol('database');
const TX = Symbol('transaction');
const AFTER_COMMIT = Symbol('afterCommit');

/** Opaque to everything outside src/db: which database, and which open transaction, a context uses. */
export interface DataScope {
  readonly [ROOT]: PrismaClient;
  readonly [TX]?: Prisma.TransactionClient;
  readonly [AFTER_COMMIT]?: (() => void)[];
}

export interface Tenant {
  readonly storeId: string;
  readonly mode: Mode;
}

export interface TenantContext extends Tenant {
  readonly data: DataScope;
}

/**
 * The client services use. Model delegates only: raw SQL would bypass the tenant filter, so it
 * is reached through the helpers of this module instead.
 */
export type Db = Omit<Prisma.TransactionClient, '$queryRaw' | '$executeRaw' | '$queryRawUnsafe' | '$executeRawUnsafe'>;

export function dataScope(root: PrismaClient): DataScope {
  return { [ROOT]: root };
}

/** Tables that belong to no tenant; the tenant-bound client refuses them (see src/db/system.ts). */
const SYSTEM_MODELS = new Set(['ApiKey', 'ServiceSetting']);
/** Of those, service-wide settings, which any context may read and create (see `serviceSettings`). */
const SHARED_MODELS = new Set(['ServiceSetting']);

interface ModelInfo {
  tenant: boolean;
  /** Relation field name -> related model, for tenant models reached by nested writes. */
  relations: Map<string, string>;
}

const MODELS: Map<string, ModelInfo> = (() => {
  const { models } = getDatamodel().datamodel;
  const out = new Map<string, ModelInfo>();
  for (const [name, model] of Object.entries(models)) {
    const fields = model.fields.map((f) => f.name);
    const relations = new Map<string, string>();
    for (const f of model.fields) if (f.kind === 'object') relations.set(f.name, f.type);
    out.set(name, { tenant: !SYSTEM_MODELS.has(name) && fields.includes('storeId') && fields.includes('mode'), relations });
  }
  return out;
})();

export const TENANT_MODELS: ReadonlySet<string> = new Set([...MODELS].filter(([, m]) => m.tenant).map(([name]) => name));

type Data = Record<string, unknown>;
const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const each = <T>(v: T | T[], fn: (x: T) => T): T | T[] => (Array.isArray(v) ? v.map(fn) : fn(v));

/** `data` of a create for `model`, with the tenant on it and on every nested create of a tenant model. */
function stamp(model: string, data: Data, tenant: Tenant): Data {
  const info = MODELS.get(model);
  const out: Data = info?.tenant ? { ...data, storeId: tenant.storeId, mode: tenant.mode } : { ...data };
  for (const [field, target] of info?.relations ?? []) {
    const nested = out[field];
    if (isObject(nested)) out[field] = stampNested(target, nested, tenant);
  }
  return out;
}

/** Nested write arguments of a relation field: creates get the tenant; updates are searched for deeper creates. */
function stampNested(model: string, nested: Data, tenant: Tenant): Data {
  const out: Data = { ...nested };
  if (out.create !== undefined) out.create = each(out.create as Data | Data[], (d) => stamp(model, d, tenant));
  if (isObject(out.createMany)) {
    out.createMany = { ...out.createMany, data: each(out.createMany.data as Data | Data[], (d) => stamp(model, d, tenant)) };
  }
  if (out.connectOrCreate !== undefined) {
    out.connectOrCreate = each(out.connectOrCreate as Data | Data[], (c) => ({ ...c, create: stamp(model, c.create as Data, tenant) }));
  }
  if (out.upsert !== undefined) {
    out.upsert = each(out.upsert as Data | Data[], (u) => ({ ...u, create: stamp(model, u.create as Data, tenant), update: stampUpdate(model, u.update as Data, tenant) }));
  }
  if (out.update !== undefined) {
    out.update = each(out.update as Data | Data[], (u) => ('data' in u && 'where' in u ? { ...u, data: stampUpdate(model, u.data as Data, tenant) } : stampUpdate(model, u, tenant)));
  }
  return out;
}

/** Update data: the scalars stay as they are; nested relation writes may create rows. */
function stampUpdate(model: string, data: Data, tenant: Tenant): Data {
  const out: Data = { ...data };
  for (const [field, target] of MODELS.get(model)?.relations ?? []) {
    const nested = out[field];
    if (isObject(nested)) out[field] = stampNested(target, nested, tenant);
  }
  return out;
}

const WHERE_OPERATIONS = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'delete', 'deleteMany', 'upsert',
]);

function scopeArgs(model: string, operation: string, args: Data, tenant: Tenant): Data {
  const out: Data = { ...args };
  if (WHERE_OPERATIONS.has(operation)) out.where = { ...(isObject(args.where) ? args.where : {}), storeId: tenant.storeId, mode: tenant.mode };
  switch (operation) {
    case 'create':
      out.data = stamp(model, args.data as Data, tenant);
      break;
    case 'createMany':
    case 'createManyAndReturn':
      out.data = each(args.data as Data | Data[], (d) => stamp(model, d, tenant));
      break;
    case 'upsert':
      out.create = stamp(model, args.create as Data, tenant);
      out.update = stampUpdate(model, args.update as Data, tenant);
      break;
    case 'update':
    case 'updateMany':
    case 'updateManyAndReturn':
      out.data = stampUpdate(model, args.data as Data, tenant);
      break;
  }
  return out;
}

function bind(root: PrismaClient, tenant: Tenant): PrismaClient {
  const extended = root.$extends({
    name: 'tenant',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          if (model === 'Store') {
            // A tenant sees its own store row and nothing else of the table.
            if (operation.startsWith('find')) return query({ ...(args as Data), where: { ...((args as Data).where as Data), id: tenant.storeId } });
            throw new Error(`Store rows are written through the stores service, not a tenant client (${operation})`);
          }
          if (SHARED_MODELS.has(model)) return query(args);
          if (!TENANT_MODELS.has(model)) throw new Error(`${model} is not a tenant table; it is reached through src/db/system.ts`);
          return query(scopeArgs(model, operation, args as Data, tenant));
        },
      },
    },
  });
  // A query extension changes what the calls send, not their types.
  return extended as unknown as PrismaClient;
}

const bound = new WeakMap<PrismaClient, Map<string, PrismaClient>>();
const MAX_BOUND_CLIENTS = 1_000;

/** One bound client per tenant per database, made on first use. */
function tenantClient(root: PrismaClient, tenant: Tenant): PrismaClient {
  let perRoot = bound.get(root);
  if (!perRoot) bound.set(root, (perRoot = new Map()));
  const key = `${tenant.storeId}\u0000${tenant.mode}`;
  let client = perRoot.get(key);
  if (!client) {
    if (perRoot.size >= MAX_BOUND_CLIENTS) perRoot.clear();
    perRoot.set(key, (client = bind(root, tenant)));
  }
  return client;
}

/** The tenant-bound client of a context: inside `inTransaction`, the transaction's. */
export function db(ctx: TenantContext): Db {
  return ctx.data[TX] ?? tenantClient(ctx.data[ROOT], ctx);
}

export interface TransactionOptions {
  maxWait?: number;
  timeout?: number;
}

const DEFAULT_TRANSACTION: TransactionOptions = { maxWait: 10_000, timeout: 20_000 };

/**
 * Runs `fn` in one database transaction: a new one, or the one the context is already in, so
 * services compose (a purchase writes its order, license and events in the transaction of the
 * payment that called it) without passing handles around. Nothing may wait on the network
 * inside: a transaction holds locks and, on the embedded database, the only connection.
 */
export async function inTransaction<C extends TenantContext, T>(ctx: C, fn: (ctx: C) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
  if (ctx.data[TX]) return fn(ctx);
  const root = ctx.data[ROOT];
  const afterCommit: (() => void)[] = [];
  const result = await tenantClient(root, ctx).$transaction(
    (tx) => fn({ ...ctx, data: { [ROOT]: root, [TX]: tx, [AFTER_COMMIT]: afterCommit } }),
    { ...DEFAULT_TRANSACTION, ...options },
  );
  for (const run of afterCommit) run();
  return result;
}

/**
 * Runs `fn` once the context's transaction has committed (at once outside a transaction):
 * for effects on this process that must not precede the commit, such as dropping a cache
 * entry, which a read in between would otherwise fill again with the old row.
 */
export function afterCommit(ctx: TenantContext, fn: () => void): void {
  const pending = ctx.data[AFTER_COMMIT];
  if (pending) pending.push(fn);
  else fn();
}

export function inTransactionNow(ctx: TenantContext): boolean {
  return ctx.data[TX] !== undefined;
}

/** The scope's open transaction, or the database: for statements that filter by tenant themselves. */
export const rawClient = (scope: DataScope): Prisma.TransactionClient => scope[TX] ?? scope[ROOT];

/**
 * `rawClient` for the other modules of src/db (src/db/usage.ts) that write their own statements,
 * each filtering and stamping the caller's tenant itself.
 */
export const sqlClient = (ctx: TenantContext): Prisma.TransactionClient => rawClient(ctx.data);

function transactionOf(ctx: TenantContext, what: string): Prisma.TransactionClient {
  const tx = ctx.data[TX];
  if (!tx) throw new Error(`${what} must run inside inTransaction()`);
  return tx;
}

function tenantTable(model: string): Prisma.Sql {
  if (!TENANT_MODELS.has(model)) throw new Error(`${model} is not a tenant table`);
  return Prisma.raw(`"${model}"`);
}

/**
 * Locks one row of the caller's tenant until the transaction ends (SELECT … FOR UPDATE), so a
 * read-modify-write cannot lose a concurrent change. False when there is no such row.
 */
export async function lockRow(ctx: TenantContext, model: string, id: string): Promise<boolean> {
  return (await lockRows(ctx, model, [id])).length > 0;
}

/**
 * The condition that keeps a hand-written statement to the caller's tenant: the row (of
 * `alias`, or unqualified) belongs to the caller's store and environment.
 */
export function tenantCondition(ctx: TenantContext, alias?: string): Prisma.Sql {
  const column = (name: string) => Prisma.raw(alias ? `${alias}."${name}"` : `"${name}"`);
  return Prisma.sql`${column('storeId')} = ${ctx.storeId} AND ${column('mode')} = CAST(${ctx.mode} AS "Mode")`;
}

/**
 * Locks rows of the caller's tenant until the transaction ends, in id order (two batches
 * sharing rows wait for each other instead of deadlocking). Returns the ids that exist.
 */
export async function lockRows(ctx: TenantContext, model: string, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const rows = await transactionOf(ctx, 'lockRows').$queryRaw<{ id: string }[]>`
    SELECT "id" FROM ${tenantTable(model)} WHERE "id" IN (${Prisma.join(ids)}) AND ${tenantCondition(ctx)}
     ORDER BY "id" FOR UPDATE`;
  return rows.map((r) => r.id);
}

type Column = { name: string; sqlType: string; updatedAt: boolean };
const COLUMNS: Map<string, Map<string, Column>> = (() => {
  const scalar: Record<string, string> = { String: 'text', Int: 'integer', BigInt: 'bigint', Boolean: 'boolean', DateTime: 'timestamptz', Json: 'jsonb' };
  const out = new Map<string, Map<string, Column>>();
  for (const [name, model] of Object.entries(getDatamodel().datamodel.models)) {
    const columns = new Map<string, Column>();
    for (const f of model.fields) {
      if (f.isList || (f.kind !== 'scalar' && f.kind !== 'enum')) continue;
      const sqlType = f.kind === 'enum' ? `"${f.type}"` : scalar[f.type];
      if (sqlType) columns.set(f.name, { name: f.name, sqlType, updatedAt: f.isUpdatedAt === true });
    }
    out.set(name, columns);
  }
  return out;
})();

const sameColumns = (row: Record<string, unknown>, names: readonly string[]) => Object.keys(row).length === names.length && names.every((n) => n in row);

function sqlValue(value: unknown, column: Column): Prisma.Sql {
  if (value === null || value === undefined) return Prisma.sql`CAST(NULL AS ${Prisma.raw(column.sqlType)})`;
  const v = typeof value === 'bigint' ? value.toString() : column.sqlType === 'jsonb' ? JSON.stringify(value) : value;
  return Prisma.sql`CAST(${v} AS ${Prisma.raw(column.sqlType)})`;
}

/**
 * Writes a different value set to each of many rows of the caller's tenant in one statement,
 * what Prisma's `updateMany` (one value set for all) cannot: a batch settling each renewal with
 * its own period and payment reference. Rows are found by the `key` columns (default `id`);
 * every row sets the same columns; `onlyIf` narrows the write to rows still in a given state.
 * `@updatedAt` columns are set as Prisma sets them. Returns the keys of the rows written.
 */
export async function updateRows(
  ctx: TenantContext,
  model: string,
  rows: readonly Record<string, unknown>[],
  options: { key?: readonly string[]; onlyIf?: Record<string, string | number | boolean> } = {},
): Promise<Record<string, unknown>[]> {
  if (!rows.length) return [];
  const table = tenantTable(model);
  const columns = COLUMNS.get(model)!;
  const key = options.key ?? ['id'];
  const names = Object.keys(rows[0]!);
  const column = (name: string) => {
    const c = columns.get(name);
    if (!c) throw new Error(`${model}.${name} is not a scalar column`);
    return c;
  };
  for (const k of key) if (!names.includes(k)) throw new Error(`updateRows on ${model}: every row needs its key ${k}`);
  const sets = names.filter((n) => !key.includes(n));
  const values = rows.map((row) => {
    if (!sameColumns(row, names)) throw new Error(`updateRows on ${model}: every row sets the same columns`);
    return Prisma.sql`(${Prisma.join(names.map((n) => sqlValue(row[n], column(n))))})`;
  });
  const quoted = (n: string) => Prisma.raw(`"${column(n).name}"`);
  const now = new Date();
  const assignments = [
    ...sets.map((n) => Prisma.sql`${quoted(n)} = v.${quoted(n)}`),
    ...[...columns.values()].filter((c) => c.updatedAt && !sets.includes(c.name)).map((c) => Prisma.sql`${quoted(c.name)} = ${now}`),
  ];
  // The keys also as lists: the planner then reads the rows through the key's index instead
  // of joining the value list against the tenant's whole table.
  const conditions = [
    ...key.map((k) => Prisma.sql`t.${quoted(k)} = v.${quoted(k)}`),
    ...key.map((k) => Prisma.sql`t.${quoted(k)} IN (${Prisma.join([...new Set(rows.map((r) => r[k]))].map((v) => sqlValue(v, column(k))))})`),
    ...Object.entries(options.onlyIf ?? {}).map(([n, v]) => Prisma.sql`t.${quoted(n)} = ${sqlValue(v, column(n))}`),
  ];
  return rawClient(ctx.data).$queryRaw<Record<string, unknown>[]>`
    UPDATE ${table} AS t SET ${Prisma.join(assignments)}
      FROM (VALUES ${Prisma.join(values)}) AS v(${Prisma.join(names.map(quoted))})
     WHERE ${Prisma.join(conditions, ' AND ')} AND ${tenantCondition(ctx, 't')}
    RETURNING ${Prisma.join(key.map((k) => Prisma.sql`t.${quoted(k)}`))}`;
}

/**
 * Inserts many rows of the caller's tenant in one statement, stamped with its store and
 * environment. Prisma's `createMany` spends about half a millisecond of CPU per row building
 * its statement (measured: 25 rows, 10 ms), which a batch of renewals or events cannot
 * afford. Every row gives the same columns; columns left out take their database default,
 * `@updatedAt` ones the time now. `onConflict` names a unique key: rows that collide are left
 * as they are (`nothing`) or get the listed columns of the new row (`update`). Returns the
 * number of rows inserted or updated.
 */
export async function insertRows(
  ctx: TenantContext,
  model: string,
  rows: readonly Record<string, unknown>[],
  options: { onConflict?: { key: readonly string[]; update?: readonly string[] } } = {},
): Promise<number> {
  if (!rows.length) return 0;
  const table = tenantTable(model);
  const columns = COLUMNS.get(model)!;
  const column = (name: string) => {
    const c = columns.get(name);
    if (!c || name === 'storeId' || name === 'mode') throw new Error(`${model}.${name} is not a column a tenant writes`);
    return c;
  };
  const names = Object.keys(rows[0]!);
  const now = new Date();
  const stamped = [...columns.values()].filter((c) => c.updatedAt && !names.includes(c.name)).map((c) => c.name);
  const quoted = (n: string) => Prisma.raw(`"${n}"`);
  const values = rows.map((row) => {
    if (!sameColumns(row, names)) throw new Error(`insertRows on ${model}: every row gives the same columns`);
    return Prisma.sql`(${Prisma.join([
      Prisma.sql`${ctx.storeId}`,
      Prisma.sql`CAST(${ctx.mode} AS "Mode")`,
      ...names.map((n) => sqlValue(row[n], column(n))),
      ...stamped.map(() => Prisma.sql`CAST(${now} AS timestamptz)`),
    ])})`;
  });
  const conflict = options.onConflict;
  const onConflict = !conflict
    ? Prisma.empty
    : conflict.update?.length
      ? // A key may not hold the tenant columns; a row of another tenant is never overwritten.
        Prisma.sql`ON CONFLICT (${Prisma.join(conflict.key.map(quoted))}) DO UPDATE SET ${Prisma.join(conflict.update.map((n) => Prisma.sql`${quoted(column(n).name)} = EXCLUDED.${quoted(n)}`))}
          WHERE ${table}."storeId" = EXCLUDED."storeId" AND ${table}."mode" = EXCLUDED."mode"`
      : Prisma.sql`ON CONFLICT (${Prisma.join(conflict.key.map(quoted))}) DO NOTHING`;
  return rawClient(ctx.data).$executeRaw`
    INSERT INTO ${table} (${Prisma.join(['storeId', 'mode', ...names, ...stamped].map(quoted))})
    VALUES ${Prisma.join(values)} ${onConflict}`;
}

/**
 * The ledger's posting, done by the database function `credit_ledger_post` (its migration
 * says what it does) in one round trip, for the caller's tenant: in the caller's transaction
 * when there is one, else as one statement of its own (atomic all the same).
 */
export async function callLedgerPost(
  ctx: TenantContext,
  p: {
    transactionId: string;
    reference: string;
    idempotencyKey: string;
    requestHash: string;
    reversalOfId: string | null;
    now: Date;
    entries: { accountId: string; side: string; amount: bigint }[];
    eventIds: string[];
    rechargeJobKind: string;
  },
) {
  const accounts = p.entries.map((e) => e.accountId);
  const sides = p.entries.map((e) => e.side);
  const amounts = p.entries.map((e) => e.amount.toString());
  return rawClient(ctx.data).$queryRaw<
    { outcome: string; account_id: string; entry_id: string | null; side: 'debit' | 'credit' | null; amount: bigint | null; balance_after: bigint | null }[]
  >`SELECT * FROM credit_ledger_post(${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), ${p.transactionId}, ${p.reference}, ${p.idempotencyKey}, ${p.requestHash},
      ${p.reversalOfId}, CAST(${p.now} AS timestamptz), CAST(${accounts} AS text[]), CAST(${sides} AS text[]), CAST(${amounts} AS bigint[]), CAST(${p.eventIds} AS text[]), ${p.rechargeJobKind})`;
}

/**
 * Events of the caller's tenant and their webhook deliveries, written by the database function
 * `record_events` (its migration says what it does) in one round trip.
 */
export async function callRecordEvents(ctx: TenantContext, now: Date, events: readonly { id: string; type: string; payload: unknown }[]): Promise<void> {
  const ids = events.map((e) => e.id);
  const types = events.map((e) => e.type);
  const payloads = events.map((e) => JSON.stringify(e.payload));
  await transactionOf(ctx, 'callRecordEvents').$executeRaw`SELECT record_events(${ctx.storeId}, CAST(${ctx.mode} AS "Mode"), CAST(${now} AS timestamptz),
      CAST(${ids} AS text[]), CAST(${types} AS text[]), CAST(${payloads} AS jsonb[]))`;
}

/** A notification delivered to listeners (other processes' caches) when the transaction commits. */
export async function notifyOnCommit(ctx: TenantContext, channel: string, payload: string): Promise<void> {
  await transactionOf(ctx, 'notifyOnCommit').$executeRaw`SELECT pg_notify(${channel}, ${payload})`;
}

/**
 * A row of `model` by id with a caller-chosen Prisma selection, through the tenant-bound
 * client: what a GraphQL payload reads back after a write, for whatever the query selects.
 */
export function findByIdSelecting(ctx: TenantContext, model: string, id: string, selection: object): Promise<unknown> {
  if (!TENANT_MODELS.has(model)) throw new Error(`${model} is not a tenant table`);
  const delegates = db(ctx) as unknown as Record<string, { findUnique(args: object): Promise<unknown> }>;
  return delegates[model.charAt(0).toLowerCase() + model.slice(1)]!.findUnique({ ...selection, where: { id } });
}

/**
 * Service-wide settings (keys the service generates for itself), through the context's
 * transaction when there is one: the embedded database has one connection, so a query
 * outside an open transaction would wait for it to end.
 */
export function serviceSettings(scope: DataScope) {
  return rawClient(scope).serviceSetting;
}

/** For src/db/system.ts only. */
export function rootOf(scope: DataScope): PrismaClient {
  return scope[ROOT];
}
