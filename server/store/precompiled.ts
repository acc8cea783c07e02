// Queries of the read path compiled once per database and run with new values (issue 12, part 3).
// Building a Kysely query and compiling it to SQL costs ~10–15 µs of CPU per statement inside a
// request (measured in scripts/bench/store-read.ts and the floor's profile), as much as executing
// it on SQLite; a read such as GET /artifacts/{id} runs three. A `precompiled` query is built once,
// with a placeholder for each argument, and compiled once per database dialect; each call then
// puts its values where the placeholders were and executes the same SQL text (which also hits the
// SQLite statement cache, keyed by that text, at once).
//
// Only for queries whose shape does not depend on the values: a value that changes the SQL (a
// list for `in`, an optional filter) needs a precompiled query per shape, or none.
import type { CompiledQuery, Compilable } from 'kysely';
import type { Db } from './database.js';

/** A stand-in for the argument at `index` while the query is built and compiled. */
class Placeholder {
  constructor(readonly index: number) {}
}

/** Where each compiled parameter comes from: an argument (its index) or a constant of the query. */
type Source = { arg: number } | { value: unknown };

interface Prepared<R> {
  compiled: CompiledQuery<R>;
  sources: Source[];
}

/**
 * `build(db, ...args)` as a function that compiles the query once per database (its dialect: the
 * SQL differs between SQLite and PostgreSQL) and then only substitutes the arguments. The builder
 * must use each argument as a value only (`where(col, '=', arg)`, `limit(arg)`), never to decide
 * the query's shape. Plugins (`db.withPlugin`) see the query as usual: with a plugin installed,
 * the query is built and compiled on every call.
 */
export function precompiled<A extends unknown[], R>(build: (db: Db, ...args: A) => Compilable<R>): (db: Db, ...args: A) => Promise<R[]> {
  // One compiled form per dialect adapter: a transaction shares its database's adapter.
  const byAdapter = new WeakMap<object, Prepared<R>>();
  const prepare = (db: Db, arity: number): Prepared<R> => {
    const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i)) as unknown as A;
    const compiled = build(db, ...placeholders).compile();
    const sources = compiled.parameters.map((p): Source => (p instanceof Placeholder ? { arg: p.index } : { value: p }));
    const used = new Set(sources.flatMap((s) => ('arg' in s ? [s.arg] : [])));
    if (used.size !== arity) throw new Error(`precompiled: the query uses ${used.size} of its ${arity} arguments as values (${compiled.sql})`);
    return { compiled, sources };
  };
  return async (db, ...args) => {
    const executor = db.getExecutor();
    if (executor.plugins.length) return (await db.executeQuery(build(db, ...args))).rows;
    let p = byAdapter.get(executor.adapter);
    if (!p) {
      p = prepare(db, args.length);
      byAdapter.set(executor.adapter, p);
    }
    const parameters = p.sources.map((s) => ('arg' in s ? args[s.arg] : s.value));
    return (await db.executeQuery<R>({ ...p.compiled, parameters })).rows;
  };
}

/** The first row of a precompiled query, or null. */
export function firstOf<R>(rows: R[]): R | null {
  return rows[0] ?? null;
}
