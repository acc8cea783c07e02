// The rate limiter of several instances on one PostgreSQL database: every hit is one atomic
// statement on the shared `RateLimitWindow` rows (store/rate-limits.ts), so that a token's quota
// holds whichever instance a load balancer sends its requests to. The rule is the same
// `SlidingWindow` as the in-memory limiter; only where the counts live differs.
import type { Db } from '../store/database.js';
import { deleteWindowsBefore, hitWindow, readWindows } from '../store/rate-limits.js';
import { SlidingWindow, type RateDecision, type RateLimiter } from './sliding-window.js';

export class SharedWindowLimiter implements RateLimiter {
  private readonly rule: SlidingWindow;
  private nextSweep = 0;

  constructor(
    private readonly db: Db,
    readonly limit: number,
    private readonly onSweepError: (err: unknown) => void = () => {},
    windowMs = 60_000,
  ) {
    this.rule = new SlidingWindow(limit, windowMs);
  }

  async hit(key: string, nowMs: number, cost = 1): Promise<RateDecision> {
    this.sweep(nowMs);
    const windowStart = this.rule.windowStart(nowMs);
    const c = await hitWindow(this.db, {
      key,
      windowStart,
      previousStart: windowStart - this.rule.windowMs,
      weight: this.rule.previousWeight(nowMs),
      windowMs: this.rule.windowMs,
      limit: this.limit,
      cost,
    });
    return this.rule.decision(c.allowed, c.previous, c.current, nowMs, cost);
  }

  async peek(key: string, nowMs: number, cost = 0): Promise<RateDecision> {
    const windowStart = this.rule.windowStart(nowMs);
    const c = await readWindows(this.db, { key, windowStart, previousStart: windowStart - this.rule.windowMs });
    return this.rule.decision(cost === 0 || this.rule.admits(c.previous, c.current, nowMs, cost), c.previous, c.current, nowMs, cost);
  }

  /**
   * Once a window, off the request path: drops rows older than the previous window. Every
   * instance does it; the deletes are idempotent, and a lost race costs nothing.
   */
  private sweep(nowMs: number) {
    if (nowMs < this.nextSweep) return;
    this.nextSweep = nowMs + this.rule.windowMs;
    const cutoff = this.rule.windowStart(nowMs) - this.rule.windowMs;
    deleteWindowsBefore(this.db, cutoff).catch(this.onSweepError);
  }
}
