// `npm start` / `npm run worker`: runs the compiled service (build/service), compiling it first
// when it is missing or any source file changed since it was built (about a second).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, OUT } from './build.mjs';

const entry = process.argv[2] ?? 'server';
if (await buildIfStale()) console.error('compiled the service (sources had changed since the last build)');
await import(pathToFileURL(path.join(OUT, `${entry}.js`)).href);
