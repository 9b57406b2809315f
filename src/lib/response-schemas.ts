import { z } from 'zod';

/**
 * Building blocks of the /v1 response schemas. Each serializer declares the schema of what it
 * returns next to it (`orderEntity` beside `serializeOrder`), its return type is that schema's
 * type, and each operation names it as its `output`: the OpenAPI document (src/rest/openapi.ts)
 * is generated from these, and the tests check every answer they see against the document.
 */

/** A whole amount in minor units, as /v1 writes it (a JSON number up to 2^53-1). */
export const wireAmount = z.number().int().meta({ description: 'Minor units (cents)' });

/** A timestamp as /v1 writes it: ISO 8601 in UTC. */
export const isoTimestamp = z.iso.datetime({ offset: true });

/** A timestamp as the client's models type some of them: Unix time in milliseconds. */
export const unixMillis = z.number().int().meta({ description: 'Unix time in milliseconds' });

/** The environment an object lives in. */
export const modeField = z.enum(['test', 'prod']);

/** The seller's key-value pairs, as stored. */
export const metadataField = z.record(z.string(), z.unknown());

/** `object: 'order'`: names what kind of object a body is. */
export const objectTag = <T extends string>(name: T) => z.literal(name);

const paginationSchema = z
  .object({
    total_records: z.number().int(),
    total_pages: z.number().int(),
    current_page: z.number().int(),
    next_page: z.number().int().nullable(),
    prev_page: z.number().int().nullable(),
  })
  .meta({ id: 'Pagination' });

/** A page of a page-numbered /v1 list (`mapPage`). */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), pagination: paginationSchema });

/** A page of a cursor-paged /v1 list (`listOf`): `object: 'list'`, `data`, `has_more`. */
export const cursorPageOf = <T extends z.ZodType>(item: T) => z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });
