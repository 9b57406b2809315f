import { describe, expect, it } from 'vitest';
import { fuzzHarness, fuzzV1Routes } from './fuzz-support.js';

/** The /v1 fuzz (see fuzz-support.ts) over every /v1 route that reads. */
describe('hostile input over every /v1 route that reads', () => {
  const h = fuzzHarness();

  it('no 500, the standard error body, and no write, for bad input in every field, parameter and body', async () => {
    expect(await fuzzV1Routes(h, (r) => r.method === 'GET')).toBeGreaterThan(5);
  }, 60_000);
});
