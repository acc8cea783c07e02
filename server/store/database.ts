// Opens the database (SQLite by default, PostgreSQL when DATABASE_URL is set), applies the
// migrations (in process on SQLite, with the Prisma CLI on PostgreSQL), and gives the store a Kysely instance on the same drivers Prisma's
// adapters used (better-sqlite3, pg). Prisma owns the schema and the migrations; the runtime
// queries are Kysely's (issue 12). Nothing outside server/store builds queries.
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, sql, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import { applySqliteMigrations, migrateSerialized, runCli } from './migrations.js';
import { projectRootOf } from '../../shared/project-root.js';
import { pgDialect, pgPool, sqliteDialect } from './kysely.js';
import type { DB } from './tables.js';

export type { DB };
/**
 * The store's database: Kysely over better-sqlite3 or pg. A transaction (`Tx`) is one too, so
 * every store function that takes a `Db` runs inside the caller's transaction when given one.
 */
export type Db = Kysely<DB>;
/** An open transaction (what `transaction()` hands to its callback). */
export type Tx = Transaction<DB>;
export type Provider = 'sqlite' | 'postgresql';
/** A row of a table as read (`Selectable`: DateTime columns are Dates, BigInt numbers). */
export type Row<T extends keyof DB> = Selectable<DB[T]>;

export interface DatabaseHandle {
  db: Db;
  provider: Provider;
  close(): Promise<void>;
  /** The connection pool's use (PostgreSQL; SQLite has one connection). */
  poolStats?: () => { total: number; idle: number; waiting: number };
}

/**
 * Runs `fn` in a transaction; inside one already, runs it in that one (Kysely has no nesting).
 * On SQLite the store's single connection takes one transaction at a time (Kysely's connection
 * mutex), as Prisma's adapter did.
 */
export function transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/** A unique-key violation on either database (Prisma reported these as P2002). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/**
 * A Date inside the VALUES of a raw multi-row statement: PostgreSQL types a bare parameter there
 * as text, which a `timestamp` column does not take; SQLite stores the text as it is.
 */
export function dateValue(provider: Provider, d: Date | null): RawBuilder<Date | null> {
  return provider === 'postgresql' ? sql<Date | null>`CAST(${d} AS timestamp(3))` : sql<Date | null>`${d}`;
}

/** The first row, or null (Kysely gives undefined; the store's callers expect null as Prisma gave). */
export async function first<T>(q: { executeTakeFirst(): Promise<T | undefined> }): Promise<T | null> {
  return (await q.executeTakeFirst()) ?? null;
}

const root = projectRootOf(import.meta.url);

export function sqliteUrl(dataDir: string): string {
  return `file:${path.join(dataDir, 'content-pipeline.db')}`;
}

/** Applies every pending migration with the Prisma CLI (`migrate deploy`, which takes a lock on PostgreSQL). */
export async function migrate(provider: Provider, url: string): Promise<void> {
  const env = { ...process.env, ...(provider === 'sqlite' ? { PRISMA_SQLITE_URL: url } : { DATABASE_URL: url }) };
  const prismaBin = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');
  try {
    await runCli([prismaBin, 'migrate', 'deploy', '--config', path.join(root, 'prisma', `${provider}.config.ts`)], {
      env,
      cwd: root,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`Database migration failed: ${e.stderr || e.stdout || e.message}`, { cause: err });
  }
}

export async function openDatabase(opts: { dataDir: string; databaseUrl: string | null }): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    // Serialized across instances starting together, and skipped when nothing is missing (migrations.ts).
    const url = opts.databaseUrl;
    await migrateSerialized(url, path.join(root, 'prisma', 'postgresql', 'migrations'), () => migrate('postgresql', url));
    const pool = pgPool(url, 10);
    const db = new Kysely<DB>({ dialect: pgDialect(pool) });
    return {
      db,
      provider: 'postgresql',
      close: () => db.destroy(),
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const url = sqliteUrl(opts.dataDir);
  // Applied in this process (applySqliteMigrations, recorded as Prisma records them), not by the
  // Prisma CLI: nothing is spawned when nothing is missing, and a fresh data directory is ready in
  // milliseconds instead of the CLI's seconds (issue 27).
  applySqliteMigrations(url.slice('file:'.length), path.join(root, 'prisma', 'sqlite', 'migrations'));
  const raw = new Sqlite(url.slice('file:'.length));
  // WAL lets readers run beside the writer; synchronous=FULL makes every commit durable.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: sqliteDialect(raw) });
  return { db, provider: 'sqlite', close: () => db.destroy() };
}

/** The migrations this version of the service needs on `provider`, by name (read once). */
const migrationNames = new Map<Provider, string[]>();
function neededMigrations(provider: Provider): string[] {
  let names = migrationNames.get(provider);
  if (!names) {
    names = readdirSync(path.join(root, 'prisma', provider, 'migrations'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    migrationNames.set(provider, names);
  }
  return names;
}

/** Whether the database answers, and which needed migrations it has not applied (an error when it cannot be asked). */
export async function migrationState(db: Db, provider: Provider): Promise<{ applied: number; missing: string[] }> {
  const { rows } = await sql<{
    migration_name: string;
  }>`SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`.execute(db);
  const done = new Set(rows.map((r) => r.migration_name));
  return { applied: done.size, missing: neededMigrations(provider).filter((n) => !done.has(n)) };
}
