import { describe, expect, it } from 'vitest';
import { fuzzHarness, fuzzV1Routes } from './fuzz-support.js';

/** The /v1 fuzz (see fuzz-support.ts) over half the /v1 routes that write. */
describe('hostile input over half the /v1 routes that write', () => {
  const h = fuzzHarness();

  it('no 500, the standard error body, and no write, for bad input in every field, parameter and body', async () => {
    expect(await fuzzV1Routes(h, (r, i) => r.method !== 'GET' && i % 2 === 0)).toBeGreaterThan(5);
  }, 60_000);
});
