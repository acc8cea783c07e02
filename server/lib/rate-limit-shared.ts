// The rate limiter of several instances on one PostgreSQL database: every count is one atomic
// statement on the shared `RateLimitWindow` rows (store/rate-limits.ts; hits that arrive together
// are counted together), so that a token's quota holds whichever instance a load balancer sends
// its requests to. The rule is the same
// `SlidingWindow` as the in-memory limiter; only where the counts live differs.
import type { Db } from '../store/database.js';
import { deleteWindowsBefore, hitWindow, readWindows } from '../store/rate-limits.js';
import { SlidingWindow, type RateDecision, type RateLimiter } from './sliding-window.js';

/** A hit waiting for the statement in flight on its key. */
interface Waiting {
  nowMs: number;
  cost: number;
  resolve: (d: RateDecision) => void;
  reject: (err: unknown) => void;
}

export class SharedWindowLimiter implements RateLimiter {
  private readonly rule: SlidingWindow;
  private nextSweep = 0;
  /** Keys with a statement in flight, and the hits that arrived meanwhile (counted together next). */
  private readonly waiting = new Map<string, Waiting[]>();

  constructor(
    private readonly db: Db,
    readonly limit: number,
    private readonly onSweepError: (err: unknown) => void = () => {},
    windowMs = 60_000,
  ) {
    this.rule = new SlidingWindow(limit, windowMs);
  }

  /**
   * Counts the hit. At most one statement per key is in flight from this instance: a hit that
   * arrives meanwhile waits for it, and the hits that waited are then counted in ONE statement
   * (their costs added up, all or none). When that fits, each is allowed with the count it would
   * have seen counted one after the other (distinct `remaining`s, as before); when it does not,
   * they are counted one by one, so that near the limit every hit is decided alone, exactly.
   * Under load this turns N statements into about one per round trip; an idle key pays nothing.
   */
  hit(key: string, nowMs: number, cost = 1): Promise<RateDecision> {
    this.sweep(nowMs);
    const queue = this.waiting.get(key);
    if (queue) return new Promise((resolve, reject) => queue.push({ nowMs, cost, resolve, reject }));
    this.waiting.set(key, []);
    return this.hitOne(key, nowMs, cost).finally(() => this.drain(key));
  }

  /** After a statement on `key`: counts what waited for it, or frees the key. */
  private drain(key: string): void {
    const group = this.waiting.get(key) ?? [];
    if (!group.length) {
      this.waiting.delete(key);
      return;
    }
    this.waiting.set(key, []);
    void this.hitGroup(key, group).finally(() => this.drain(key));
  }

  private async hitGroup(key: string, group: Waiting[]): Promise<void> {
    try {
      const nowMs = group[group.length - 1]!.nowMs;
      const oneWindow = group.every((g) => this.rule.windowStart(g.nowMs) === this.rule.windowStart(nowMs));
      if (group.length > 1 && oneWindow) {
        const total = group.reduce((n, g) => n + g.cost, 0);
        const c = await this.count(key, nowMs, total);
        if (c.allowed) {
          let current = c.current - total;
          for (const g of group) {
            current += g.cost;
            g.resolve(this.rule.decision(true, c.previous, current, nowMs, g.cost));
          }
          return;
        }
      }
      for (const g of group) g.resolve(await this.hitOne(key, g.nowMs, g.cost));
    } catch (err) {
      for (const g of group) g.reject(err);
    }
  }

  private async hitOne(key: string, nowMs: number, cost: number): Promise<RateDecision> {
    const c = await this.count(key, nowMs, cost);
    return this.rule.decision(c.allowed, c.previous, c.current, nowMs, cost);
  }

  /** One atomic statement: `cost` hits counted unless they would go over the limit. */
  private count(key: string, nowMs: number, cost: number) {
    const windowStart = this.rule.windowStart(nowMs);
    return hitWindow(this.db, {
      key,
      windowStart,
      previousStart: windowStart - this.rule.windowMs,
      weight: this.rule.previousWeight(nowMs),
      windowMs: this.rule.windowMs,
      limit: this.limit,
      cost,
    });
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
