// The shared (PostgreSQL) limiter: the same decisions as the in-memory one (leases included), and
// exact under concurrent hits from two database clients (two instances). Skipped on SQLite, where the
// in-memory limiter is used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedWindowLimiter } from '../../server/lib/rate-limit-shared.js';
import { SlidingWindowLimiter } from '../../server/lib/sliding-window.js';
import { openDatabase, type DatabaseHandle } from '../../server/store/database.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../support/database.js';
import { countRows } from '../support/rows.js';

const W = 60_000;
const T = 9_000 * W;
const onPg = testDbKind() === 'postgresql';

/** `db` with a plugin that counts the statements it runs (`statements`, settable). */
function countingStatements(db: DatabaseHandle['db']) {
  const counter = {
    statements: 0,
    db: db.withPlugin({
      transformQuery: (args) => {
        counter.statements++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    }),
  };
  return counter;
}

describe.skipIf(!onPg)('SharedWindowLimiter (PostgreSQL)', () => {
  let tdb: TestDatabase;
  let a: DatabaseHandle;
  let b: DatabaseHandle;

  beforeAll(async () => {
    tdb = await createTestDatabase('postgresql');
    // Two clients with their own pools, as two instances would have (migrations lock, so both may start at once).
    [a, b] = (await Promise.all([0, 1].map(() => openDatabase({ dataDir: tdb.dataDir, databaseUrl: tdb.databaseUrl })))) as [DatabaseHandle, DatabaseHandle];
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await tdb?.drop();
  });

  it('decides exactly like the in-memory limiter over a walk across window boundaries', async () => {
    const shared = new SharedWindowLimiter(a.db, 7, undefined, W);
    const memory = new SlidingWindowLimiter(7, W);
    // A fixed pseudo-random walk (LCG), so that a failure replays the same way.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    let now = T;
    for (let i = 0; i < 120; i++) {
      now += next() % 4_000;
      const key = next() % 3 === 0 ? 'tok_b' : 'tok_a';
      const expected = memory.hit(key, now);
      expect(await shared.hit(key, now), `hit ${i} of ${key} at +${now - T} ms`).toEqual(expected);
      // A peek reports the same standing, counting nothing.
      if (i % 10 === 0) expect(await shared.peek(key, now + 1), `peek after hit ${i}`).toEqual(memory.peek(key, now + 1));
    }
  });

  it('counts a cost of several hits all or none, exactly like the in-memory limiter', async () => {
    const shared = new SharedWindowLimiter(a.db, 10, undefined, W);
    const memory = new SlidingWindowLimiter(10, W);
    const now = T + 50 * W + 30_000;
    for (const [i, [at, cost]] of [
      [0, 4],
      [1, 7],
      [2, 6],
      [3, 1],
      [W, 11],
      [W + 20_000, 3],
      [W + 40_000, 5],
    ].entries()) {
      expect(await shared.peek('tok_cost', now + at!, cost), `peek ${i}`).toEqual(memory.peek('tok_cost', now + at!, cost));
      expect(await shared.hit('tok_cost', now + at!, cost), `hit ${i} (cost ${cost})`).toEqual(memory.hit('tok_cost', now + at!, cost));
    }
  });

  it('allows exactly the limit when two instances hit one key at the same moment', async () => {
    const limit = 25;
    const la = new SharedWindowLimiter(a.db, limit, undefined, W);
    const lb = new SharedWindowLimiter(b.db, limit, undefined, W);
    const now = T + 100 * W + 1_000;
    // hit answers at once when a lease pays for it, else with a promise: async makes each a promise for Promise.all.
    const hits = Array.from({ length: 80 }, async (_, i) => (i % 2 ? la : lb).hit('tok_race', now));
    const decisions = await Promise.all(hits);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(limit);
    // every allowed hit saw a distinct count: remaining took each value from limit-1 down to 0 once
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: limit }, (_, i) => i));
    for (const d of decisions.filter((x) => !x.allowed)) expect(d.remaining).toBe(0);
  });

  it('counts hits that arrive together in fewer statements, each with its own exact decision', async () => {
    const counted = countingStatements(a.db);
    const l = new SharedWindowLimiter(counted.db, 100, undefined, W);
    const now = T + 150 * W + 1_000;
    // The first hit of a window also sweeps old windows (a statement of its own): done before counting.
    await l.hit('tok_warm', now);
    counted.statements = 0;
    const costs = Array.from({ length: 30 }, (_, i) => (i % 5 === 0 ? 3 : 1));
    const decisions = await Promise.all(costs.map(async (cost) => l.hit('tok_group', now, cost)));
    const total = costs.reduce((x, y) => x + y, 0);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    // As if counted one after the other: remaining falls by each hit's cost, in arrival order.
    let left = 100;
    expect(decisions.map((d) => d.remaining)).toEqual(costs.map((c) => (left -= c)));
    expect(left).toBe(100 - total);
    // The first hit alone, the 29 that waited for it together.
    expect(counted.statements).toBe(2);
    expect(await l.peek('tok_group', now)).toMatchObject({ remaining: 100 - total });
  });

  it('decides hits that arrive together one by one when together they do not fit', async () => {
    const l = new SharedWindowLimiter(a.db, 10, undefined, W);
    const now = T + 160 * W + 1_000;
    const decisions = await Promise.all(Array.from({ length: 14 }, async (_, i) => l.hit('tok_over', now, i === 3 ? 4 : 1)));
    // In arrival order: 1, 1, 1 fit (7 left), the 4 fits (3 left), then 3 more fit and the rest are refused.
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, true, true, false, false, false, false, false, false, false]);
    expect(decisions.filter((d) => d.allowed).map((d) => d.remaining)).toEqual([9, 8, 7, 3, 2, 1, 0]);
  });

  it('leases: one instance still decides exactly like the in-memory limiter, across window boundaries and near the limit', async () => {
    // A limit of 200 leases 10 beyond each statement's need; costs up to 12 reach the limit in every window.
    const shared = new SharedWindowLimiter(a.db, 200, undefined, W);
    expect(shared.lease).toBe(10);
    const memory = new SlidingWindowLimiter(200, W);
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    let now = T + 300 * W;
    let refused = 0;
    for (let i = 0; i < 150; i++) {
      now += next() % 3_000;
      const cost = 1 + (next() % 12);
      const expected = memory.hit('tok_lease', now, cost);
      if (!expected.allowed) refused++;
      expect(await shared.hit('tok_lease', now, cost), `hit ${i} (cost ${cost}) at +${now - T - 300 * W} ms`).toEqual(expected);
      if (i % 7 === 0) expect(await shared.peek('tok_lease', now + 1, 5), `peek after hit ${i}`).toEqual(memory.peek('tok_lease', now + 1, 5));
    }
    // The walk did reach the limit, and crossed windows (leftover leases given back).
    expect(refused).toBeGreaterThan(5);
    expect(now - T - 300 * W).toBeGreaterThan(2 * W);
  });

  it('leases: hits paid from a lease need no statement, and the shared count never goes over the limit across instances', async () => {
    const counted = countingStatements(a.db);
    const l = new SharedWindowLimiter(counted.db, 1_000, undefined, W);
    expect(l.lease).toBe(50);
    const now = T + 400 * W + 1_000;
    await l.hit('tok_warm2', now);
    counted.statements = 0;
    const decisions = [];
    for (let i = 0; i < 102; i++) decisions.push(await l.hit('tok_leased', now + i));
    // One statement per 51 hits (the one it needs and 50 leased), each hit its own exact remaining.
    expect(counted.statements).toBe(2);
    expect(decisions.map((d) => d.remaining)).toEqual(Array.from({ length: 102 }, (_, i) => 1_000 - 1 - i));

    // Two instances racing near the limit: exactly the limit allowed, every allowed hit a distinct count.
    const limit = 200;
    const la = new SharedWindowLimiter(a.db, limit, undefined, W);
    const lb = new SharedWindowLimiter(b.db, limit, undefined, W);
    const at = T + 410 * W + 1_000;
    const all = await Promise.all(Array.from({ length: 500 }, async (_, i) => (i % 2 ? la : lb).hit('tok_race2', at)));
    const allowed = all.filter((d) => d.allowed);
    expect(allowed).toHaveLength(limit);
    expect(allowed.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: limit }, (_, i) => i));
    expect(await la.peek('tok_race2', at, 1)).toMatchObject({ allowed: false });
  });

  it('removes windows that no longer weigh on a decision, once a window', async () => {
    const l = new SharedWindowLimiter(a.db, 5, undefined, W);
    const base = T + 200 * W;
    await l.hit('tok_old', base + 1);
    const count = () => countRows(a.db, 'RateLimitWindow', { key: 'tok_old' });
    expect(await count()).toBe(1);
    // two windows later the first one is two back: the sweep (fire and forget) removes it
    await l.hit('tok_new', base + 2 * W + 1);
    await expect.poll(count, { timeout: 5_000 }).toBe(0);
  });
});
