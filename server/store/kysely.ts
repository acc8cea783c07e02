// The store's query layer: Kysely on the same drivers Prisma's adapters used (better-sqlite3, pg),
// with two small wrappers that keep the rows Prisma wrote readable and the rows we write readable
// by Prisma (issue 12):
//
// - SQLite: Prisma's adapter stores a DateTime as ISO-8601 text with an explicit offset,
//   `2026-11-22T17:00:05.252+00:00` (its default `timestampFormat: "iso8601"`). Every Date
//   parameter is written in exactly that form, so that the text comparisons SQLite makes on these
//   columns (`runAfter <= ?`) stay right next to rows Prisma wrote; every column declared DATETIME
//   is read back as a Date (the declared type comes from the prepared statement, RETURNING
//   included). Prepared statements are cached by SQL text: Kysely's own SQLite driver prepares
//   one on every call, which was most of its cost (issue 12's measurements).
// - PostgreSQL: the columns are `timestamp(3)` (without time zone) holding UTC, as Prisma's pg
//   adapter writes them. pg's defaults would read and write them in the process's local time zone,
//   so Date parameters are sent as UTC ISO text and `timestamp` values parsed as UTC; int8 values
//   (BigInt columns, count(*)) are read as numbers, as on SQLite.
import type Sqlite from 'better-sqlite3';
import pg from 'pg';
import { PostgresDialect, SqliteDialect, type SqliteDatabase, type SqliteStatement } from 'kysely';

/** The text Prisma's SQLite adapter stores for a DateTime. */
export const sqliteDate = (d: Date): string => d.toISOString().replace('Z', '+00:00');

/** A DATETIME value as SQLite holds it: Prisma's ISO text, CURRENT_TIMESTAMP's `YYYY-MM-DD HH:MM:SS` (UTC), or epoch ms. */
function parseSqliteDate(v: unknown): unknown {
  if (typeof v === 'string') return new Date(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(v) ? `${v.replace(' ', 'T')}Z` : v);
  if (typeof v === 'number' || typeof v === 'bigint') return new Date(Number(v));
  return v;
}

function sqliteParams(params: ReadonlyArray<unknown>): unknown[] {
  const out = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    out[i] = p instanceof Date ? sqliteDate(p) : typeof p === 'boolean' ? (p ? 1 : 0) : p;
  }
  return out;
}

/** Statements run on SQLite by this process (BEGIN and COMMIT included): `scripts/bench/statements.ts` reads it. */
export const sqliteStats = { statements: 0 };

class CachedStatement implements SqliteStatement {
  readonly reader: boolean;
  /** Names of the result columns declared DATETIME (null when there are none). */
  private readonly dates: string[] | null;

  constructor(private readonly stmt: Sqlite.Statement) {
    this.reader = stmt.reader;
    const dates = stmt.reader
      ? stmt
          .columns()
          .filter((c) => c.type?.toUpperCase() === 'DATETIME')
          .map((c) => c.name)
      : [];
    this.dates = dates.length ? dates : null;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    sqliteStats.statements++;
    const rows = this.stmt.all(sqliteParams(parameters)) as Array<Record<string, unknown>>;
    const dates = this.dates;
    if (dates) for (const row of rows) for (const name of dates) row[name] = parseSqliteDate(row[name]);
    return rows;
  }

  run(parameters: ReadonlyArray<unknown>) {
    sqliteStats.statements++;
    return this.stmt.run(sqliteParams(parameters));
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    const dates = this.dates;
    const it = this.stmt.iterate(sqliteParams(parameters)) as IterableIterator<Record<string, unknown>>;
    if (!dates) return it;
    return (function* () {
      for (const row of it) {
        for (const name of dates) row[name] = parseSqliteDate(row[name]);
        yield row;
      }
    })();
  }
}

/** Statements kept per database; the store's queries are a few hundred distinct texts at most. */
const STATEMENT_CACHE_SIZE = 1000;

/** better-sqlite3 as Kysely's SqliteDialect sees it, with prepared statements cached by SQL text. */
export class CachingSqlite implements SqliteDatabase {
  private readonly cache = new Map<string, CachedStatement>();

  constructor(readonly raw: Sqlite.Database) {}

  prepare(sql: string): CachedStatement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      // A schema change (a migration by another process) makes better-sqlite3 re-prepare by itself.
      if (this.cache.size >= STATEMENT_CACHE_SIZE) this.cache.clear();
      stmt = new CachedStatement(this.raw.prepare(sql));
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  close(): void {
    this.cache.clear();
    this.raw.close();
  }
}

export function sqliteDialect(raw: Sqlite.Database): SqliteDialect {
  return new SqliteDialect({ database: new CachingSqlite(raw) });
}

/**
 * A `timestamp` as PostgreSQL writes it (`2026-11-22 17:00:05.252`), read as UTC. A year past 9999
 * (`10000-01-01 00:00:00`) or before 1 (`0002-01-01 00:00:00 BC`, year -1) is read as the instant
 * it is, in JavaScript's extended years, rather than as an invalid Date: the views answer such a
 * value as an unread date (issue 30), and nothing that reads it throws.
 */
function utcTimestamp(s: string): Date {
  if (s.charCodeAt(4) === 45 && !s.endsWith(' BC')) return new Date(`${s.replace(' ', 'T')}Z`);
  const m = /^(\d+)(-\d\d-\d\d) ([\d:.]+)( BC)?$/.exec(s);
  if (!m) return new Date(Number.NaN);
  const year = m[4] ? 1 - Number(m[1]) : Number(m[1]);
  return new Date(`${year < 0 ? '-' : '+'}${String(Math.abs(year)).padStart(6, '0')}${m[2]}T${m[3]}Z`);
}

/** Type parsers of the store's pool only (the process-wide defaults of pg are left alone). */
const pgTypes: pg.CustomTypesConfig = {
  getTypeParser(oid, format): (value: string) => unknown {
    if (oid === pg.types.builtins.TIMESTAMP) return utcTimestamp;
    if (oid === pg.types.builtins.INT8) return (s: string) => Number(s);
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

function pgParams(params: unknown[] | undefined): unknown[] | undefined {
  if (!params) return params;
  let out: unknown[] | null = null;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p instanceof Date) (out ??= params.slice())[i] = p.toISOString();
  }
  return out ?? params;
}

/** Statements sent to PostgreSQL by this process's store (BEGIN and COMMIT included): the tests and `scripts/bench/statements.ts` read it. */
export const pgStats = { statements: 0 };

/** A pg client whose Date parameters are sent as UTC text (a `timestamp` column drops any offset). */
class UtcClient extends pg.Client {
  // pg's query() has many overloads; only the (text, values) form carries values to rewrite.
  override query(...args: unknown[]): never {
    pgStats.statements++;
    if (typeof args[0] === 'string' && Array.isArray(args[1])) args[1] = pgParams(args[1]);
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}

export function pgPool(connectionString: string, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, types: pgTypes, Client: UtcClient as unknown as typeof pg.Client });
  // An idle client whose connection the server ended (a restart, a dropped database, an
  // administrator) is taken out of the pool, and the next query opens a new one; without a
  // listener, pg's 'error' event on the pool would be an uncaught exception that ends the process.
  pool.on('error', () => {});
  return pool;
}

export function pgDialect(pool: pg.Pool): PostgresDialect {
  return new PostgresDialect({ pool });
}
