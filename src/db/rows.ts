import { Prisma } from '../generated/prisma/client.js';
import { getDatamodel } from '../generated/pothos-types.js';
import { PREPARED } from './database.js';

/** Put first in a hand-written statement: the pg adapter then runs it as a named prepared statement (src/db/database.ts). */
export const prepared = Prisma.raw(PREPARED);

/**
 * Rows read by hand-written SQL, returned exactly as the Prisma client returns them (BigInt,
 * Decimal, Date, parsed JSON), so a hot read written by hand and the same read through the
 * client are interchangeable. The columns come from the schema's datamodel: a column added to
 * the schema is read here too, with no list to keep in step.
 */
type ScalarKind = 'BigInt' | 'Decimal' | 'DateTime' | 'other';

const columnsOf = (() => {
  const { models } = getDatamodel().datamodel;
  const cache = new Map<string, { name: string; kind: ScalarKind }[]>();
  return (model: string) => {
    let columns = cache.get(model);
    if (!columns) {
      const fields = models[model as keyof typeof models]?.fields;
      if (!fields) throw new Error(`no model ${model}`);
      columns = fields
        .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
        .map((f) => ({ name: f.name, kind: (f.kind === 'scalar' && ['BigInt', 'Decimal', 'DateTime'].includes(f.type) ? f.type : 'other') as ScalarKind }));
      cache.set(model, columns);
    }
    return columns;
  };
})();

/** `build` once per model and alias: the fragments are the same on every call of a hot statement. */
function perModelAndAlias(build: (model: string, alias: string) => Prisma.Sql) {
  const built = new Map<string, Prisma.Sql>();
  return (model: string, alias: string) => {
    const key = `${model}\u0000${alias}`;
    let sql = built.get(key);
    if (!sql) built.set(key, (sql = build(model, alias)));
    return sql;
  };
}

/**
 * A JSON object of one row of `model` (table alias `alias`) for aggregating child rows into
 * their parent's row: numbers that JSON cannot hold exactly (bigint, numeric) travel as text,
 * timestamps as ISO text; `rowFromJson` turns them back.
 */
export const jsonRow = perModelAndAlias((model, alias) => {
  const pairs = columnsOf(model).map((c) => {
    const column = `${alias}."${c.name}"`;
    const value = c.kind === 'BigInt' || c.kind === 'Decimal' ? `${column}::text` : c.kind === 'DateTime' ? `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : column;
    return `'${c.name}', ${value}`;
  });
  return Prisma.raw(`json_build_object(${pairs.join(', ')})`);
});

/** A row of `model` from its `jsonRow` object, typed as the client types it. */
export function rowFromJson<T>(model: string, json: Record<string, unknown>): T {
  const row: Record<string, unknown> = {};
  for (const c of columnsOf(model)) {
    const value = json[c.name];
    row[c.name] =
      value === null || value === undefined
        ? null
        : c.kind === 'BigInt'
          ? BigInt(value as string)
          : c.kind === 'Decimal'
            ? new Prisma.Decimal(value as string)
            : c.kind === 'DateTime'
              ? new Date(value as string)
              : value;
  }
  return row as T;
}

/** The scalar columns of `model` (alias `alias`), as a select list a raw query reads typed. */
export const columnList = perModelAndAlias((model, alias) => Prisma.raw(columnsOf(model).map((c) => `${alias}."${c.name}"`).join(', ')));
