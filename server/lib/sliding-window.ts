// A sliding-window counter (the weighted two-window approximation of a rolling window).
// Libraries checked (express-rate-limit, rate-limiter-flexible) offer fixed windows only; the spec
// asks for a rolling minute, and this is short. The rule (`SlidingWindow`) is pure, so that the
// in-memory counter here and the shared PostgreSQL counter (rate-limit-shared.ts, one atomic SQL
// statement per hit) decide exactly alike.
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** On a refusal, seconds until one more request is allowed; otherwise seconds until the current window rolls over. */
  resetSeconds: number;
}

/** Anything that counts hits per key: in memory (one instance) or in the database (several). */
export interface RateLimiter {
  readonly limit: number;
  /**
   * Counts `cost` hits (default 1: one request) for `key` at `nowMs`, all or none: unless they
   * would go over the limit; says whether they were allowed.
   */
  hit(key: string, nowMs: number, cost?: number): RateDecision | Promise<RateDecision>;
  /**
   * The quota as it stands, counting nothing. With the default `cost` 0 (a request that was
   * counted already) it is always allowed; otherwise it says whether `cost` hits would fit now.
   */
  peek(key: string, nowMs: number, cost?: number): RateDecision | Promise<RateDecision>;
}

/**
 * The rule. `used` = previous × (share of the previous window still inside the last `windowMs`)
 * + current. Everything is kept in integer "hit·milliseconds" (used × windowMs) so that the SQL
 * of the shared store can apply the very same inequality without floating point.
 */
export class SlidingWindow {
  constructor(
    readonly limit: number,
    readonly windowMs = 60_000,
  ) {}

  windowStart(nowMs: number): number {
    return nowMs - (nowMs % this.windowMs);
  }

  /** Milliseconds of the previous window that still lie inside the last `windowMs` (the weight × windowMs). */
  previousWeight(nowMs: number): number {
    return this.windowMs - (nowMs - this.windowStart(nowMs));
  }

  /** used × windowMs, for `current` hits in this window and `previous` in the one before. */
  private usedScaled(previous: number, current: number, nowMs: number): number {
    return previous * this.previousWeight(nowMs) + current * this.windowMs;
  }

  /** Whether `cost` more hits fit, given the counts before them. */
  admits(previous: number, current: number, nowMs: number, cost = 1): boolean {
    return this.usedScaled(previous, current + cost, nowMs) <= this.limit * this.windowMs;
  }

  /** The decision to report: `current` counts these hits when they were allowed. */
  decision(allowed: boolean, previous: number, current: number, nowMs: number, cost = 1): RateDecision {
    if (!allowed) return { allowed, limit: this.limit, remaining: 0, resetSeconds: this.waitSeconds(previous, current, nowMs, cost) };
    const left = this.limit * this.windowMs - this.usedScaled(previous, current, nowMs);
    const end = this.windowStart(nowMs) + this.windowMs;
    return { allowed, limit: this.limit, remaining: Math.max(0, Math.floor(left / this.windowMs)), resetSeconds: Math.max(1, Math.ceil((end - nowMs) / 1000)) };
  }

  /**
   * Seconds until the weighted count drops enough for `cost` more requests (1 to 60; 60 when
   * `cost` is more than the whole limit, which never fits).
   */
  waitSeconds(previous: number, current: number, nowMs: number, cost = 1): number {
    if (cost > this.limit) return 60;
    const end = this.windowStart(nowMs) + this.windowMs;
    let at: number;
    if (previous > 0 && current + cost <= this.limit) {
      // Within this window, the previous window's weight decays linearly.
      const needOverlap = (this.limit - cost - current) / previous;
      at = end - needOverlap * this.windowMs;
    } else {
      // Otherwise the current window must become the previous one and decay far enough.
      const needOverlap = current > 0 ? (this.limit - cost) / current : 1;
      at = end + (1 - needOverlap) * this.windowMs;
    }
    return Math.min(60, Math.max(1, Math.ceil((at - nowMs) / 1000)));
  }
}

interface Windows {
  start: number; // start of the current window, ms
  current: number;
  previous: number;
}

/** The in-memory counter of one instance (SQLite, desktop): exact, and costs no I/O. */
export class SlidingWindowLimiter implements RateLimiter {
  private readonly windows = new Map<string, Windows>();
  private readonly rule: SlidingWindow;
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    windowMs = 60_000,
  ) {
    this.rule = new SlidingWindow(limit, windowMs);
  }

  hit(key: string, nowMs: number, cost = 1): RateDecision {
    this.sweep(nowMs);
    const w = this.windowsOf(key, nowMs);
    const allowed = this.rule.admits(w.previous, w.current, nowMs, cost);
    if (allowed) w.current += cost;
    return this.rule.decision(allowed, w.previous, w.current, nowMs, cost);
  }

  peek(key: string, nowMs: number, cost = 0): RateDecision {
    const w = this.windowsOf(key, nowMs);
    return this.rule.decision(cost === 0 || this.rule.admits(w.previous, w.current, nowMs, cost), w.previous, w.current, nowMs, cost);
  }

  /** The key's counts, rolled over to the window of `nowMs`. */
  private windowsOf(key: string, nowMs: number): Windows {
    const start = this.rule.windowStart(nowMs);
    let w = this.windows.get(key);
    if (!w) {
      w = { start, current: 0, previous: 0 };
      this.windows.set(key, w);
    } else if (w.start !== start) {
      w.previous = start - w.start === this.rule.windowMs ? w.current : 0;
      w.current = 0;
      w.start = start;
    }
    return w;
  }

  private sweep(nowMs: number) {
    if (nowMs - this.lastSweep < this.rule.windowMs) return;
    this.lastSweep = nowMs;
    for (const [key, w] of this.windows) if (nowMs - w.start >= 2 * this.rule.windowMs) this.windows.delete(key);
  }
}
