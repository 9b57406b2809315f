// Compiles the service into build/ (esbuild: one bundle per entry point, shared chunks), so that
// `npm start` loads JavaScript ready to run instead of transpiling TypeScript at every start.
// Packages that find their own files at run time (PGlite's data files, Prisma's engines,
// GraphiQL's page, loaded only when asked for) stay in node_modules.
import { readdirSync, statSync } from 'node:fs';
import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Two levels below the root, like src/<dir>/: paths the code resolves from its own file
// (`../../prisma/migrations`, `../../schema.graphql`) land on the same files.
export const OUT = path.join(ROOT, 'build', 'service');
export const STAMP = path.join(OUT, '.built');

export async function buildService() {
  await rm(OUT, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: { server: 'src/server.ts', worker: 'src/worker.ts' },
    outdir: OUT,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    external: ['@electric-sql/pglite', '@electric-sql/pglite/*', '@prisma/*', 'prisma', 'pg-native', '@graphql-yoga/render-graphiql', 'swagger-ui-dist'],
    // Bundled CommonJS packages call require(); give the ES module bundle one.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  });
  // Files the code reads next to itself (`new URL('./views', import.meta.url)`).
  await cp(path.join(ROOT, 'src/pages/views'), path.join(OUT, 'views'), { recursive: true });
  await cp(path.join(ROOT, 'src/modules/tax/tax-rates.json'), path.join(OUT, 'tax-rates.json'));
  await writeFile(STAMP, new Date().toISOString());
}

const mtime = (file) => {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
};

function newestUnder(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestUnder(full) : mtime(full));
  }
  return newest;
}

/** Builds when the bundle is missing or a source file changed since it was built; answers whether it built. */
export async function buildIfStale() {
  if (mtime(STAMP) >= newestUnder(path.join(ROOT, 'src'))) return false;
  await buildService();
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildService();
