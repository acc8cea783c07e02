// The rate limiter of several instances on one PostgreSQL database: every count is one atomic
// statement on the shared `RateLimitWindow` rows (store/rate-limits.ts), so that a token's quota
// holds whichever instance a load balancer sends its requests to. The rule is the same
// `SlidingWindow` as the in-memory limiter; only where the counts live differs.
//
// Leases (issue 12, part 3): a statement per request cost a GET on PostgreSQL ~130 µs of CPU, a
// third of it. When an instance has to count a hit, it counts a small block more in the same
// statement (`leaseOf(limit)`: 5 % of the limit, at most 50) and spends that block locally, with no
// statement, until it is used up or the window ends; what is left at the end of a window is given
// back in the next statement. The shared count includes every lease, so the hits allowed across all
// instances never exceed the limit; the price is that near its limit a token can be refused while
// another instance still holds unspent hits of its window (at most one block per instance), and that
// `remaining` on one instance does not see the other instances' hits since its last statement.
// On one instance the decisions are exactly the in-memory limiter's (test/unit/rate-limit-shared.test.ts).
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

/** Hits of a key's window this instance has counted in the shared row and not spent yet. */
interface Lease {
  windowStart: number;
  /** The previous window's count as the last statement saw it. */
  previous: number;
  /**
   * What each statement leased, oldest first: the window's count after it (`end`), and how many
   * of its hits are not spent yet (`left`, the last ones up to `end`). Spent oldest first, so that
   * every allowed hit reports the count it took in the shared row (no two hits alike).
   */
  blocks: Array<{ end: number; left: number }>;
  /** The sum of the blocks' `left`. */
  left: number;
}

/** The block an instance leases beyond what it needs: 5 % of the limit, at most 50 (0 below a limit of 20: every hit is a statement). */
export function leaseOf(limit: number): number {
  return Math.min(50, Math.floor(limit / 20));
}

export class SharedWindowLimiter implements RateLimiter {
  private readonly rule: SlidingWindow;
  private nextSweep = 0;
  /** Keys with a statement in flight, and the hits that arrived meanwhile (counted together next). */
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly leases = new Map<string, Lease>();
  /** Hits leased beyond a statement's need (`leaseOf`). */
  readonly lease: number;

  constructor(
    private readonly db: Db,
    readonly limit: number,
    private readonly onSweepError: (err: unknown) => void = () => {},
    windowMs = 60_000,
    lease = leaseOf(limit),
  ) {
    this.rule = new SlidingWindow(limit, windowMs);
    this.lease = lease;
  }

  /**
   * Counts the hit: from this instance's lease when it holds enough (no statement, no promise);
   * otherwise with a statement. At most one statement per key is in flight from this instance: a
   * hit that arrives meanwhile waits for it, and the hits that waited are then served from the new
   * lease, or counted in ONE statement (their costs added up, all or none). Each is allowed with
   * the count it would have seen counted one after the other (distinct `remaining`s); when they do
   * not fit together, they are counted one by one, so that near the limit every hit is decided alone.
   */
  hit(key: string, nowMs: number, cost = 1): RateDecision | Promise<RateDecision> {
    this.sweep(nowMs);
    const queue = this.waiting.get(key);
    if (queue) return new Promise((resolve, reject) => queue.push({ nowMs, cost, resolve, reject }));
    const local = this.spend(key, nowMs, cost);
    if (local) return local;
    this.waiting.set(key, []);
    return this.hitOne(key, nowMs, cost).finally(() => this.drain(key));
  }

  /** The hit paid from the key's lease of this window, or null when it holds less than `cost`. */
  private spend(key: string, nowMs: number, cost: number): RateDecision | null {
    const l = this.leases.get(key);
    if (!l || l.left < cost || l.windowStart !== this.rule.windowStart(nowMs)) return null;
    l.left -= cost;
    let due = cost;
    let current = 0;
    while (due > 0) {
      const b = l.blocks[0]!;
      const n = Math.min(due, b.left);
      b.left -= n;
      due -= n;
      current = b.end - b.left;
      if (!b.left) l.blocks.shift();
    }
    return this.rule.decision(true, l.previous, current, nowMs, cost);
  }

  /** After a statement on `key`: serves or counts what waited for it, or frees the key. */
  private drain(key: string): void {
    const group = this.waiting.get(key) ?? [];
    // In arrival order, as long as the lease pays: the first that it cannot pay and all after it go on.
    let paid = 0;
    for (const g of group) {
      const d = this.spend(key, g.nowMs, g.cost);
      if (!d) break;
      g.resolve(d);
      paid++;
    }
    const rest = group.slice(paid);
    if (!rest.length) {
      this.waiting.delete(key);
      return;
    }
    this.waiting.set(key, []);
    void this.hitGroup(key, rest).finally(() => this.drain(key));
  }

  private async hitGroup(key: string, group: Waiting[]): Promise<void> {
    try {
      const nowMs = group[group.length - 1]!.nowMs;
      const oneWindow = group.every((g) => this.rule.windowStart(g.nowMs) === this.rule.windowStart(nowMs));
      if (group.length > 1 && oneWindow) {
        const total = group.reduce((n, g) => n + g.cost, 0);
        if ((await this.take(key, nowMs, total)) === true) {
          // The lease now pays for all of them, one after the other.
          for (const g of group) g.resolve(this.spend(key, nowMs, g.cost)!);
          return;
        }
      }
      for (const g of group) g.resolve(await this.hitOne(key, g.nowMs, g.cost));
    } catch (err) {
      for (const g of group) g.reject(err);
    }
  }

  private async hitOne(key: string, nowMs: number, cost: number): Promise<RateDecision> {
    const local = this.spend(key, nowMs, cost);
    if (local) return local;
    const taken = await this.take(key, nowMs, cost);
    if (taken === true) return this.spend(key, nowMs, cost)!;
    return this.rule.decision(false, taken.previous, taken.current, nowMs, cost);
  }

  /**
   * Makes the key's lease of this window hold at least `cost`: one statement counting what it
   * lacks plus a block (a second, counting only what it lacks, when that does not fit). True when
   * it does; otherwise the counts for the refusal (this instance's unspent hits taken out, so that
   * one instance decides exactly as the in-memory limiter).
   */
  private async take(key: string, nowMs: number, cost: number): Promise<true | { previous: number; current: number }> {
    const windowStart = this.rule.windowStart(nowMs);
    const old = this.leases.get(key);
    const held = old?.windowStart === windowStart ? old.left : 0;
    // What was left of the previous window's lease goes back with the first statement.
    let giveBack = old?.windowStart === windowStart - this.rule.windowMs ? old.left : 0;
    if (!held) this.leases.delete(key);
    const need = cost - held;
    if (need <= 0) return true;
    for (const extra of this.lease > 0 ? [this.lease, 0] : [0]) {
      const c = await this.count(key, nowMs, need + extra, giveBack);
      giveBack = 0;
      if (c.allowed) {
        const blocks = held ? old!.blocks : [];
        blocks.push({ end: c.current, left: need + extra });
        this.leases.set(key, { windowStart, previous: c.previous, blocks, left: held + need + extra });
        return true;
      }
      if (!extra) return { previous: c.previous, current: c.current - held };
    }
    throw new Error('unreachable');
  }

  /** One atomic statement: `cost` hits counted unless they would go over the limit. */
  private count(key: string, nowMs: number, cost: number, giveBack = 0) {
    const windowStart = this.rule.windowStart(nowMs);
    return hitWindow(this.db, {
      key,
      windowStart,
      previousStart: windowStart - this.rule.windowMs,
      weight: this.rule.previousWeight(nowMs),
      windowMs: this.rule.windowMs,
      limit: this.limit,
      cost,
      giveBack,
    });
  }

  async peek(key: string, nowMs: number, cost = 0): Promise<RateDecision> {
    const windowStart = this.rule.windowStart(nowMs);
    const c = await readWindows(this.db, { key, windowStart, previousStart: windowStart - this.rule.windowMs });
    // This instance's unspent hits are not used: as the in-memory limiter would count them.
    const l = this.leases.get(key);
    const previous = c.previous - (l?.windowStart === windowStart - this.rule.windowMs ? l.left : 0);
    const current = c.current - (l?.windowStart === windowStart ? l.left : 0);
    return this.rule.decision(cost === 0 || this.rule.admits(previous, current, nowMs, cost), previous, current, nowMs, cost);
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
