import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter } from '../../server/lib/sliding-window.js';

describe('SlidingWindowLimiter', () => {
  it('allows the limit within a window, then refuses', () => {
    const l = new SlidingWindowLimiter(3);
    const t = 1_000_000 * 60_000; // a window boundary
    expect([1, 2, 3].map(() => l.hit('k', t + 1000).allowed)).toEqual([true, true, true]);
    const d = l.hit('k', t + 1000);
    expect(d.allowed).toBe(false);
    expect(d.remaining).toBe(0);
    expect(d.resetSeconds).toBeGreaterThan(0);
  });

  it('weights the previous window by its overlap with the last 60 seconds (a rolling minute)', () => {
    const l = new SlidingWindowLimiter(10);
    const t = 5_000 * 60_000;
    for (let i = 0; i < 10; i++) expect(l.hit('k', t + 59_000).allowed).toBe(true);
    // 15 s into the next window, 75% of the previous window still counts: 7.5 used
    expect(l.hit('k', t + 75_000).allowed).toBe(true); // 8.5
    expect(l.hit('k', t + 75_000).allowed).toBe(true); // 9.5
    const refused = l.hit('k', t + 75_000);
    expect(refused.allowed).toBe(false);
    // a fixed window would have allowed 10 more here; a refusal says when to come back
    expect(refused.resetSeconds).toBeGreaterThanOrEqual(1);
    // two whole windows later, everything is forgotten
    expect(l.hit('k', t + 180_000).remaining).toBe(9);
  });

  it('peeks at the quota without counting, allowed even when it is spent', () => {
    const l = new SlidingWindowLimiter(3);
    const t = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    expect(l.peek('k', t + 1000)).toMatchObject({ allowed: true, remaining: 3 });
    l.hit('k', t + 1000);
    expect(l.peek('k', t + 1000)).toMatchObject({ allowed: true, remaining: 2 });
    expect(l.peek('k', t + 1000).remaining).toBe(2);
    l.hit('k', t + 1000);
    l.hit('k', t + 1000);
    expect(l.hit('k', t + 1000).allowed).toBe(false);
    expect(l.peek('k', t + 1000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('counts a cost of several hits all or none, and says how long until they fit', () => {
    const l = new SlidingWindowLimiter(10);
    const t = 600_000;
    expect(l.hit('k', t, 4)).toMatchObject({ allowed: true, remaining: 6 });
    expect(l.peek('k', t, 7)).toMatchObject({ allowed: false, remaining: 0 });
    const refused = l.hit('k', t, 7);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    // The 4 hits must weigh 3 at most: 15 s into the next window, 75 s from now, reported as the cap of 60.
    expect(refused.resetSeconds).toBe(60);
    expect(l.peek('k', t)).toMatchObject({ allowed: true, remaining: 6 }); // the refusal counted nothing
    expect(l.hit('k', t + 30_000, 6)).toMatchObject({ allowed: true, remaining: 0 });
    // more than the whole limit never fits
    expect(new SlidingWindowLimiter(5).hit('k', t, 6)).toMatchObject({ allowed: false, resetSeconds: 60 });
  });

  it('keeps keys apart', () => {
    const l = new SlidingWindowLimiter(1);
    expect(l.hit('a', 0).allowed).toBe(true);
    expect(l.hit('a', 0).allowed).toBe(false);
    expect(l.hit('b', 0).allowed).toBe(true);
  });
});
