// The sliding-window rule itself (pure), which both limiters share, and the choice of store.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config.js';
import { SlidingWindow, SlidingWindowLimiter } from '../../server/lib/sliding-window.js';

const W = 60_000;
const T = 7_000 * W; // a window boundary

describe('SlidingWindow', () => {
  it('weights the previous window by the share of it still inside the last minute', () => {
    const rule = new SlidingWindow(10, W);
    expect(rule.windowStart(T + 12_345)).toBe(T);
    expect(rule.previousWeight(T)).toBe(W); // at the boundary the whole previous window counts
    expect(rule.previousWeight(T + 15_000)).toBe(45_000);
    // 15 s in: 10 × 0.75 = 7.5 used; 2 more fit (9.5), a third (10.5) does not
    expect(rule.admits(10, 1, T + 15_000)).toBe(true);
    expect(rule.admits(10, 2, T + 15_000)).toBe(false);
    // the same counts half a minute later: 10 × 0.25 = 2.5 + 7 = 9.5, one more fits
    expect(rule.admits(10, 7, T + 45_000)).toBe(false);
    expect(rule.admits(10, 6, T + 45_000)).toBe(true);
  });

  it('reports what is left (rounded down) and when the window rolls over', () => {
    const rule = new SlidingWindow(10, W);
    const d = rule.decision(true, 10, 1, T + 15_000); // 8.5 used
    expect(d).toEqual({ allowed: true, limit: 10, remaining: 1, resetSeconds: 45 });
    const refused = rule.decision(false, 10, 2, T + 15_000);
    expect(refused.remaining).toBe(0);
    // 9.5 used: the previous window must decay to 0.7 (t = 18 s) before one more fits
    expect(refused.resetSeconds).toBe(3);
  });

  it('never reports a wait outside 1 to 60 seconds', () => {
    const rule = new SlidingWindow(1, W);
    for (const [prev, cur, at] of [
      [0, 1, T],
      [1, 1, T + 59_999],
      [50, 0, T],
      [0, 0, T + 1],
    ] as const) {
      const s = rule.waitSeconds(prev, cur, at);
      expect(s).toBeGreaterThanOrEqual(1);
      expect(s).toBeLessThanOrEqual(60);
    }
  });
});

describe('SlidingWindowLimiter (in memory)', () => {
  it('does not count refused hits: a client hammering while limited does not extend its own wait', () => {
    const l = new SlidingWindowLimiter(3, W);
    for (let i = 0; i < 3; i++) expect(l.hit('k', T + 1000).allowed).toBe(true);
    for (let i = 0; i < 100; i++) expect(l.hit('k', T + 2000).allowed).toBe(false);
    // two windows on, only the 3 allowed hits ever counted: the previous window is empty
    expect(l.hit('k', T + 2 * W + 1).remaining).toBe(2);
    // one window on, the 3 allowed hits weigh almost fully: nothing left
    const l2 = new SlidingWindowLimiter(3, W);
    for (let i = 0; i < 3; i++) l2.hit('k', T + 1000);
    for (let i = 0; i < 100; i++) l2.hit('k', T + 2000);
    expect(l2.hit('k', T + W + 30_000).allowed).toBe(true); // 3 × 0.5 = 1.5 + 1 = 2.5 ≤ 3
  });
});

describe('RATE_LIMIT_STORE', () => {
  const pg = 'postgresql://u:p@127.0.0.1/db';
  it('counts in the database on PostgreSQL and in memory on SQLite unless told otherwise', () => {
    expect(loadConfig({}).rateLimitStore).toBe('memory');
    expect(loadConfig({ DATABASE_URL: pg }).rateLimitStore).toBe('database');
    expect(loadConfig({ DATABASE_URL: pg, RATE_LIMIT_STORE: 'memory' }).rateLimitStore).toBe('memory');
    expect(loadConfig({ DATABASE_URL: pg, RATE_LIMIT_STORE: 'auto' }).rateLimitStore).toBe('database');
  });

  it('refuses a shared store without PostgreSQL, and unknown values, by name', () => {
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'database' })).toThrow(/RATE_LIMIT_STORE=database needs DATABASE_URL/);
    expect(() => loadConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(ConfigError);
  });
});
