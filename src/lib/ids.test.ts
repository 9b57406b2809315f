import { describe, expect, it } from 'vitest';
import { newId, pooledRandom } from './ids.js';

describe('newId', () => {
  it('issues prefixed ULIDs that are unique and sort in the order they were issued', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('event'));
    expect(ids.every((id) => /^evt_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws its random part from a pool that keeps refilling with fresh, evenly spread bytes', () => {
    const counts = new Array<number>(32).fill(0);
    const draws = Array.from({ length: 64_000 }, () => pooledRandom());
    for (const x of draws) counts[Math.floor(x * 32)]!++;
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
    for (const n of counts) expect(n).toBeGreaterThan(1_500);
    // Past the pool's size the bytes are new ones, not the first pool again.
    expect(draws.slice(4096, 8192)).not.toEqual(draws.slice(0, 4096));
  });
});
