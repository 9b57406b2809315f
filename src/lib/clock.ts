/** Time source of the core. Injected so that tests (and later, scheduled billing) can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until moved; for tests and scenarios. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(to: Date | number): void {
    this.current = typeof to === 'number' ? to : to.getTime();
  }
}

/** A clock `offsetMs` ahead of `base`: a store's test clock. */
export function offsetClock(base: Clock, offsetMs: number): Clock {
  return offsetMs === 0 ? base : { now: () => new Date(base.now().getTime() + offsetMs) };
}
