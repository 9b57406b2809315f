import { z } from 'zod';
import { resourceId } from './schemas.js';

/**
 * Lists. A service defines each list once (`listing` in src/db/listing.ts): its rows (filtered,
 * ordered, read with the caller's selection and window) and its count. REST reads a listing
 * page by page (`page_number`, `page_size`); GraphQL reads the same listing as a Relay
 * connection (src/graphql/connection.ts). Lists the official client pages by cursor (the
 * customer-credits lists) use `cursorQuery` and `cursorPage` in src/db/listing.ts instead.
 */
export interface Listing<Args, Row> {
  rows(args: Args): Promise<Row[]>;
  count(): Promise<number>;
}

export interface PageInput {
  page_number: number;
  page_size: number;
}

/** Page-based paging of the /v1 list operations. */
export const pageQuery = (defaultSize: number) =>
  z.object({
    page_number: z.coerce.number().int().min(1).max(1_000_000).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(defaultSize),
  });

export interface Page<T> {
  items: T[];
  pagination: {
    total_records: number;
    total_pages: number;
    current_page: number;
    next_page: number | null;
    prev_page: number | null;
  };
}

export function toPage<T>(items: T[], total: number, page: PageInput): Page<T> {
  const totalPages = Math.ceil(total / page.page_size);
  const current = page.page_number;
  return {
    items,
    pagination: {
      total_records: total,
      total_pages: totalPages,
      current_page: current,
      next_page: current < totalPages ? current + 1 : null,
      prev_page: current > 1 ? Math.min(current - 1, Math.max(totalPages, 1)) : null,
    },
  };
}

/** A page with its items rendered. */
export function mapPage<T, U>(page: Page<T>, render: (item: T) => U): Page<U> {
  return { ...page, items: page.items.map(render) };
}

export interface CursorInput {
  limit: number;
  starting_after?: string;
  ending_before?: string;
}

/** Cursor paging as the official client sends it: `limit` (1 to 100, default 10) and an item id on either side. */
export const cursorQuery = {
  limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(10),
  starting_after: resourceId.optional(),
  ending_before: resourceId.optional(),
};

export interface CursorPage<T> {
  data: T[];
  has_more: boolean;
}

/** A cursor page as the /v1 list body the client reads: `object`, `data`, `has_more`. */
export const listOf = <T, R>(page: CursorPage<T>, render: (item: T) => R) => ({ object: 'list' as const, data: page.data.map(render), has_more: page.has_more });
