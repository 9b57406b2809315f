/**
 * A small in-process cache for hot reads whose writes all announce themselves (see
 * Database.subscribe). It only serves entries while the change feed is live; when the
 * feed drops it empties itself and passes every read through until the feed is back.
 *
 * A read that started before an invalidation is never stored after it: every invalidation
 * bumps a generation counter and a loader's result is kept only if the counter did not
 * move while it ran. Cached values are shared between requests and must not be mutated.
 */
export class ReadCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();
  private generation = 0;
  private live = false;

  constructor(
    private readonly maxEntries = 10_000,
    private readonly ttlMs = 60_000,
  ) {}

  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  invalidate(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  async get(key: string, load: () => Promise<T>): Promise<T> {
    if (!this.live) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    if (this.live && generation === this.generation) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, expires: now + this.ttlMs });
    }
    return value;
  }
}
