// Shared rate-limit windows (PostgreSQL): one row per (key, window start) holding the count of
// allowed hits in that window. Several instances on one database count into the same rows.
import { sql } from 'kysely';
import type { Db } from './database.js';

export interface WindowHit {
  key: string;
  /** Start (ms since the epoch) of the current window and of the one before it. */
  windowStart: number;
  previousStart: number;
  /** The rule of lib/sliding-window.ts in integers: allow while previous × weight + (current + 1) × windowMs ≤ limit × windowMs. */
  weight: number;
  windowMs: number;
  limit: number;
  /** How many hits to count at once (all or none); 1 unless given. */
  cost?: number;
  /**
   * Hits counted in the previous window that this instance leased and did not spend: taken off
   * that window's count in the same statement, before the rule reads it (0 unless given).
   */
  giveBack?: number;
}

export interface WindowCounts {
  allowed: boolean;
  previous: number;
  /** The current window's count: after this hit when it was allowed, as last seen when it was not. */
  current: number;
}

type Row = { previous: number | string | null; after: number | string | null; before: number | string | null };

/**
 * Counts `cost` hits (one unless given) unless they would go over the limit, in ONE statement, so that it is atomic across
 * instances without a transaction: the conditional upsert (`INSERT … ON CONFLICT DO UPDATE …
 * WHERE`) locks the row, re-checks the rule against the latest committed count and increments it
 * only when the hit fits; a refused hit writes nothing (a client hammering while limited does not
 * push its own window further). The previous window is only read, except to give back what an
 * instance leased in it and did not spend (`giveBack`, lib/rate-limit-shared.ts).
 */
export async function hitWindow(db: Db, h: WindowHit): Promise<WindowCounts> {
  const capacity = (BigInt(h.limit) * BigInt(h.windowMs)).toString();
  const cost = h.cost ?? 1;
  const giveBack = h.giveBack ?? 0;
  const { rows } = await sql<Row>`
    WITH prev AS (
      SELECT "count" - ${giveBack}::int AS "count" FROM "RateLimitWindow" WHERE "key" = ${h.key} AND "windowStart" = ${h.previousStart}::bigint
    ), returned AS (
      UPDATE "RateLimitWindow" SET "count" = "count" - ${giveBack}::int
      WHERE ${giveBack}::int > 0 AND "key" = ${h.key} AND "windowStart" = ${h.previousStart}::bigint
    ), hit AS (
      INSERT INTO "RateLimitWindow" AS w ("key", "windowStart", "count")
      SELECT ${h.key}, ${h.windowStart}::bigint, ${cost}::int
      WHERE COALESCE((SELECT "count" FROM prev), 0)::bigint * ${h.weight}::bigint + ${cost}::bigint * ${h.windowMs}::bigint <= ${capacity}::bigint
      ON CONFLICT ("key", "windowStart") DO UPDATE SET "count" = w."count" + ${cost}::int
      WHERE COALESCE((SELECT "count" FROM prev), 0)::bigint * ${h.weight}::bigint + (w."count" + ${cost}::int)::bigint * ${h.windowMs}::bigint <= ${capacity}::bigint
      RETURNING w."count"
    )
    SELECT (SELECT "count" FROM prev) AS "previous",
           (SELECT "count" FROM hit) AS "after",
           (SELECT "count" FROM "RateLimitWindow" WHERE "key" = ${h.key} AND "windowStart" = ${h.windowStart}::bigint) AS "before"`.execute(db);
  const r = rows[0] ?? { previous: null, after: null, before: null };
  const previous = Number(r.previous ?? 0);
  if (r.after !== null) return { allowed: true, previous, current: Number(r.after) };
  return { allowed: false, previous, current: Number(r.before ?? 0) };
}

/** The counts of the current and the previous window, writing nothing. */
export async function readWindows(db: Db, q: { key: string; windowStart: number; previousStart: number }): Promise<{ previous: number; current: number }> {
  const rows = await db
    .selectFrom('RateLimitWindow')
    .select(['windowStart', 'count'])
    .where('key', '=', q.key)
    .where('windowStart', 'in', [q.previousStart, q.windowStart])
    .execute();
  const countAt = (start: number) => rows.find((r) => Number(r.windowStart) === start)?.count ?? 0;
  return { previous: countAt(q.previousStart), current: countAt(q.windowStart) };
}

/** Removes windows that started before `cutoffMs` (they no longer weigh on any decision). */
export async function deleteWindowsBefore(db: Db, cutoffMs: number): Promise<number> {
  const r = await db.deleteFrom('RateLimitWindow').where('windowStart', '<', cutoffMs).executeTakeFirst();
  return Number(r.numDeletedRows);
}
