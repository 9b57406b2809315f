// `npm start` / `npm run worker`: runs the compiled service (build/service), compiling it first
// when it is missing or any source file changed since it was built (about a second).
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildService, OUT, STAMP } from './build.mjs';

const entry = process.argv[2] ?? 'server';
const SRC = path.resolve(OUT, '../../src');

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

if (mtime(STAMP) < newestUnder(SRC)) {
  console.error('compiling the service (sources changed since the last build)…');
  await buildService();
}
await import(pathToFileURL(path.join(OUT, `${entry}.js`)).href);
