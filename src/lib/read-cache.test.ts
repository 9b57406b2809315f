import { describe, expect, it } from 'vitest';
import { ReadCache } from './read-cache.js';

describe('ReadCache', () => {
  it('passes reads through until the change feed is live', async () => {
    const cache = new ReadCache<number>();
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('a', load);
    await cache.get('a', load);
    expect(loads).toBe(2);
    cache.setLive(true);
    await cache.get('a', load);
    expect(await cache.get('a', load)).toBe(3);
    expect(loads).toBe(3);
  });

  it('forgets everything when the feed drops, and serves nothing while it is down', async () => {
    const cache = new ReadCache<string>();
    cache.setLive(true);
    await cache.get('a', async () => 'old');
    cache.setLive(false);
    expect(cache.size).toBe(0);
    expect(await cache.get('a', async () => 'new')).toBe('new');
    expect(await cache.get('a', async () => 'newer')).toBe('newer');
  });

  it('does not store a value read before an invalidation that happened while it loaded', async () => {
    const cache = new ReadCache<string>();
    cache.setLive(true);
    let finishLoad!: (v: string) => void;
    const slow = cache.get('a', () => new Promise<string>((r) => (finishLoad = r)));
    cache.invalidate('a');
    finishLoad('stale');
    expect(await slow).toBe('stale');
    expect(await cache.get('a', async () => 'fresh')).toBe('fresh');
  });

  it('expires entries and bounds its size', async () => {
    const cache = new ReadCache<number>(2, 0);
    cache.setLive(true);
    let loads = 0;
    await cache.get('a', async () => ++loads);
    await cache.get('a', async () => ++loads);
    expect(loads).toBe(2);
    const bounded = new ReadCache<number>(2, 60_000);
    bounded.setLive(true);
    for (const k of ['a', 'b', 'c']) await bounded.get(k, async () => 1);
    expect(bounded.size).toBe(2);
  });
});
