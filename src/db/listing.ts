import type { Prisma } from '../generated/prisma/client.js';
import { toPage, type CursorInput, type CursorPage, type Page, type PageInput } from '../lib/pagination.js';

type Delegate = { findMany(args: never): unknown; count(args: never): unknown };
type FindMany<D> = NonNullable<Prisma.Args<D, 'findMany'>>;
type Where<D> = FindMany<D> extends { where?: infer W } ? W : never;
type OrderBy<D> = FindMany<D> extends { orderBy?: infer O } ? O : never;

/** What a listing's reader chooses: the selection, and the window (a page, or a cursor). */
export interface RowsArgs {
  include?: unknown;
  select?: unknown;
  skip?: number;
  take?: number;
  cursor?: unknown;
}

/**
 * A list defined once by its service: the rows of one table of the caller's tenant (the
 * delegate comes from `db(ctx)`) that match `where`, in `orderBy` order. REST reads it page
 * by page (`page`), GraphQL as a Relay connection (`listQuery`), each with its own
 * selection; the rows come typed for that selection.
 */
export function listing<D extends Delegate>(delegate: D, where: Where<D>, orderBy: OrderBy<D>) {
  const findMany = delegate.findMany as unknown as (args: object) => Promise<unknown[]>;
  const count = delegate.count as unknown as (args: object) => Promise<number>;
  const rows = <A extends RowsArgs>(args: A) => findMany.call(delegate, { ...args, where, orderBy }) as Promise<Prisma.Result<D, A, 'findMany'>>;
  const total = () => count.call(delegate, { where });
  return {
    rows,
    count: total,
    /** One /v1 page, read with `selection`. */
    page<S extends Pick<RowsArgs, 'include' | 'select'> = object>(
      input: PageInput,
      selection?: S,
    ): Promise<Page<Prisma.Result<D, S, 'findMany'> extends (infer R)[] ? R : never>> {
      return readPage({ rows: (args) => rows({ ...selection, ...args }) as Promise<never[]>, count: total }, input);
    },
  };
}

/** One /v1 page of any list of rows and count (a `listing`, or a list outside the tenant such as src/db/system.ts reads). */
export async function readPage<T>(list: { rows(args: { skip: number; take: number }): Promise<T[]>; count(): Promise<number> }, input: PageInput): Promise<Page<T>> {
  const [items, records] = await Promise.all([list.rows({ skip: (input.page_number - 1) * input.page_size, take: input.page_size }), list.count()]);
  return toPage(items, records, input);
}

/**
 * A cursor page, newest first: `starting_after` and `ending_before` are item ids (time-sortable),
 * `has_more` is true only when more exist that way. `fetch` reads the rows of the list with the
 * window given (its id condition, order and count).
 */
export async function cursorPage<T extends { id: string }>(
  fetch: (window: { where: { id?: { lt: string } | { gt: string } }; orderBy: { id: 'asc' | 'desc' }; take: number }) => Promise<T[]>,
  input: CursorInput,
): Promise<CursorPage<T>> {
  const backwards = input.ending_before !== undefined && input.starting_after === undefined;
  const rows = await fetch({
    where: backwards ? { id: { gt: input.ending_before! } } : input.starting_after ? { id: { lt: input.starting_after } } : {},
    orderBy: { id: backwards ? 'asc' : 'desc' },
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  return { data: backwards ? page.reverse() : page, has_more: rows.length > input.limit };
}
