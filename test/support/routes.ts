import { TENANT_MODELS } from '../../src/db/tenant.js';
import type { Operation } from '../../src/core/operation.js';
import { checkoutPages } from '../../src/pages/checkout-page.js';
import { splitInvitationPages } from '../../src/pages/split-invitation-page.js';
import { affiliatePages } from '../../src/pages/affiliate-pages.js';
import { portalPages } from '../../src/pages/portal-page.js';
import { routesOf as rawRoutesOf, v1Routes as v1RouteTable, type RouterRoute } from '../../src/rest/route-table.js';
import type { TestDatabase } from './database.js';

/** A route read from its router; `operation` is the operation a /v1 route runs. */
export interface RouteInfo {
  /** "GET /products/:id" */
  name: string;
  method: string;
  path: string;
  operation?: Operation<unknown, unknown>;
}

const withOperation = (routes: RouterRoute[]): RouteInfo[] => routes.map((r) => ({ name: r.name, method: r.method, path: r.path, operation: r.operation?.op }));

/** Every route of the /v1 router, read from the router itself (paths relative to /v1). */
export function v1Routes(): RouteInfo[] {
  return withOperation(v1RouteTable());
}

const routesOf = (router: Parameters<typeof rawRoutesOf>[0]) => withOperation(rawRoutesOf(router));

/** Every route of the hosted pages (checkout, portal, split and affiliate invitations, referral links), read from their routers. */
export function pageRoutes(): RouteInfo[] {
  const none = { take: async () => null };
  const env = { baseUrl: 'http://localhost' } as never;
  return [
    ...routesOf(checkoutPages({} as never, { bodyLimit: '1kb', submits: none })),
    ...routesOf(portalPages(env)),
    ...routesOf(splitInvitationPages(env, {} as never, { bodyLimit: '1kb' })),
    ...routesOf(affiliatePages(env, { bodyLimit: '1kb' })),
  ];
}

/** One text per tenant table over a store's rows in one environment: any write to them changes it. */
export async function tenantFingerprint(db: TestDatabase, storeId: string, mode: 'test' | 'prod' = 'test'): Promise<string> {
  const parts: string[] = [];
  for (const model of [...TENANT_MODELS].sort()) {
    const rows = await db.prisma.$queryRawUnsafe<{ h: string | null }[]>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM "${model}" t WHERE t."storeId" = $1 AND t."mode" = $2::"Mode"`,
      storeId,
      mode,
    );
    parts.push(`${model}:${rows[0]?.h ?? ''}`);
  }
  return parts.join('\n');
}
