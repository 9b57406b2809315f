import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The data-access rule as a test (docs/architecture.md): transports never reach a Prisma
 * client, services never write a tenant filter by hand, and access that belongs to no tenant
 * stays in the few places that need it. A new file that breaks the rule fails here, naming it.
 */
const root = path.resolve(import.meta.dirname, '..');
const src = path.join(root, 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'generated' ? [] : files(full);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [full] : [];
  });
}

const sources = files(src).map((file) => ({ file: path.relative(root, file), text: readFileSync(file, 'utf8') }));

const isTransport = (file: string) =>
  /^src\/(rest|graphql|pages)\//.test(file) || /\.(routes|graphql)\.ts$/.test(file);

const offenders = (pattern: RegExp, allowed: (file: string) => boolean) =>
  sources.filter((s) => pattern.test(s.text) && !allowed(s.file)).map((s) => s.file);

describe('data access', () => {
  it('keeps Prisma clients out of transports (REST routes, GraphQL resolvers, pages)', () => {
    const touchesClient = /\bdb\(|systemDb\(|\.prisma\b|\$queryRaw|\$executeRaw|PrismaClient\b|ctx\.core\.db/;
    // The builder hands the plugin the tenant-bound client of the request; the health check asks the database itself.
    const allowed = new Set(['src/graphql/builder.ts', 'src/app.ts']);
    expect(sources.filter((s) => isTransport(s.file) && touchesClient.test(s.text) && !allowed.has(s.file)).map((s) => s.file)).toEqual([]);
  });

  it('writes no store or environment filter by hand in services', () => {
    const handWritten = /storeId:\s*ctx\.storeId|mode:\s*ctx\.mode|\.\.\.scope\(/;
    expect(offenders(handWritten, (f) => f.startsWith('src/db/') || f === 'src/context.ts')).toEqual([]);
  });

  it('reaches tables outside the tenant-bound client only where no single tenant applies', () => {
    const system = /systemDb\(|storeOwning\(|rootOf\(/;
    const allowed = new Set([
      'src/db/system.ts', // defines them
      'src/db/tenant.ts',
      'src/lib/service-secret.ts', // service-wide keys
      'src/modules/stores/api-keys.ts', // keys belong to no tenant
      'src/modules/checkouts/checkouts.service.ts', // hosted pages: the checkout or product id is the capability
      'src/pages/signed-page.ts', // a signed link names the row (portal customer, split recipient, affiliate invitation)
      'src/modules/splits/split-invitations.ts', // an invitee's new store belongs to no tenant
      'src/app.ts', // health check
    ]);
    expect(offenders(system, (f) => allowed.has(f))).toEqual([]);
  });

  it('keeps raw SQL in the data layer and the job runner', () => {
    const raw = /\$queryRaw|\$executeRaw/;
    const allowed = (f: string) => f.startsWith('src/db/') || f.startsWith('src/jobs/') || f === 'src/modules/webhooks/delivery-worker.ts' || f === 'src/app.ts';
    expect(offenders(raw, allowed)).toEqual([]);
  });
});
