import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { v1Routes } from '../support/routes.js';

/**
 * Every operation of the official client has its route here, except prompt moderation (an AI
 * screening service, out of scope). Read from the client's own sources, so a new client
 * operation shows up as missing until the server has it.
 */
describe('the official client against the router', () => {
  it('finds a /v1 route for 78 of the client’s 79 operations, all but prompt moderation', () => {
    const funcs = join(dirname(createRequire(import.meta.url).resolve('creem/package.json')), 'src/funcs');
    const operations = readdirSync(funcs)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => {
        const src = readFileSync(join(funcs, f), 'utf8');
        const method = /method: "([A-Z]+)"/.exec(src)![1]!;
        const path = /pathToFunc\("([^"]+)"\)/.exec(src)![1]!.replace(/^\/v1/, '').replace(/\{(\w+)\}/g, ':$1');
        return { name: f.replace(/\.ts$/, ''), route: `${method} ${path}` };
      });
    const served = new Set(v1Routes().map((r) => r.name.replace(/:\w+/g, ':p')));
    const missing = operations.filter((o) => !served.has(o.route.replace(/:\w+/g, ':p'))).map((o) => o.name);
    expect(operations).toHaveLength(79);
    expect(missing).toEqual(['moderationScreenPrompt']);
  });
});
