import { z } from 'zod';

/** Page-based paging of the /v1 list operations (`page_number`, `page_size`). */
export const pageQuery = (defaultSize: number) =>
  z.object({
    page_number: z.coerce.number().int().min(1).default(1),
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

export function pageWindow(page: { page_number: number; page_size: number }) {
  return { skip: (page.page_number - 1) * page.page_size, take: page.page_size };
}

export function toPage<T>(items: T[], total: number, page: { page_number: number; page_size: number }): Page<T> {
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
