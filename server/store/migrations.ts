// Migrating one PostgreSQL database from several instances that start together. Prisma's own
// advisory lock in `migrate deploy` gives up after 10 s, and here the CLI (WASM schema engine)
// holds it until its process exits, about 10 s after it has finished: a second instance starting
// at the same time failed with P1002 (measured; README.md, "Running several instances"). So instances queue on an
// advisory lock of ours, which waits without a time limit, and whoever gets it runs the CLI only
// when a migration is still missing: the others, and every ordinary restart, skip it.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';

/** Key of the session-level advisory lock that serializes migrations (distinct from the outbox's). */
const MIGRATION_LOCK_KEY = 4_207_310_002;

/** Migration directories (`<timestamp>_<name>`) that are not applied, or all of them when none are. */
async function missingMigrations(client: pg.Client, dir: string): Promise<string[]> {
  const wanted = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const { rows } = await client.query<{ t: string | null }>(`SELECT to_regclass('_prisma_migrations')::text AS t`);
  if (!rows[0]?.t) return wanted;
  const applied = await client.query<{ migration_name: string }>(
    'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
  );
  const done = new Set(applied.rows.map((r) => r.migration_name));
  return wanted.filter((name) => !done.has(name));
}

/** Runs `deploy` (the Prisma CLI) under the lock, unless every migration in `dir` is applied already. */
export async function migrateSerialized(url: string, dir: string, deploy: () => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    if ((await missingMigrations(client, dir)).length) await deploy();
  } finally {
    // Ending the session releases the lock too; the explicit unlock just makes it prompt.
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  }
}

/** What `migrate deploy` prints when it is done (applied, or nothing to apply). */
const DEPLOY_DONE = /All migrations have been successfully applied\.|No pending migrations to apply\./;

/**
 * Runs the Prisma CLI (`node <prisma> …args`) and resolves as soon as it reports success. On
 * PostgreSQL its WASM schema engine leaves a 10-second timer behind, so the process exits about
 * 10 s after it is done (measured: 12 s for a `migrate deploy` whose work took 1.5 s); nothing is
 * left to do by then, so the process is ended. Otherwise it resolves on a zero exit and rejects
 * with the output.
 */
export function runCli(args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (DEPLOY_DONE.test(stdout)) {
        resolve();
        child.kill();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || DEPLOY_DONE.test(stdout)) resolve();
      else reject(Object.assign(new Error(`prisma exited with ${code}`), { stdout, stderr }));
    });
  });
}

/** `_prisma_migrations` exactly as Prisma's schema engine creates it on SQLite. */
const SQLITE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

/** A time as Prisma's engine writes it in `_prisma_migrations` on SQLite (`2026-11-26T09:40:26.652+00:00`). */
const prismaTime = (d: Date) => d.toISOString().replace('Z', '+00:00');

/**
 * Applies the SQLite migrations of `dir` that the file at `file` lacks, in this process, the way
 * `prisma migrate deploy` does: each `migration.sql` run as one script (Prisma does not wrap them in
 * a transaction: their `PRAGMA foreign_keys` toggles need none), and recorded in
 * `_prisma_migrations` with Prisma's checksum (the SHA-256 of the file), so that the Prisma CLI
 * (`migrate status`, `migrate deploy`, `migrate diff`) sees the same history it would have written.
 * Spawning the CLI for this was most of a fresh desktop start (issue 27: a second or more of its
 * WASM schema engine). A script that fails is recorded with its error and no `finished_at`, as
 * Prisma records it, and stops the start with that error. Returns the names applied.
 */
export function applySqliteMigrations(file: string, dir: string): string[] {
  const wanted = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const db = new Sqlite(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.exec(SQLITE_MIGRATIONS_TABLE);
    const failed = db.prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NULL AND rolled_back_at IS NULL').get() as
      | { migration_name: string }
      | undefined;
    if (failed) throw new Error(`Database migration failed earlier and needs attention: ${failed.migration_name} (see \`prisma migrate resolve\`)`);
    const done = new Set(
      (
        db.prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL').all() as {
          migration_name: string;
        }[]
      ).map((r) => r.migration_name),
    );
    const applied: string[] = [];
    for (const name of wanted.filter((n) => !done.has(n))) {
      const script = readFileSync(path.join(dir, name, 'migration.sql'));
      const id = randomUUID();
      db.prepare('INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, 0)').run(
        id,
        createHash('sha256').update(script).digest('hex'),
        name,
        prismaTime(new Date()),
      );
      try {
        db.exec(script.toString('utf8'));
      } catch (err) {
        db.prepare('UPDATE _prisma_migrations SET logs = ? WHERE id = ?').run(String((err as Error).message), id);
        throw new Error(`Database migration failed: ${name}: ${(err as Error).message}`, { cause: err });
      }
      db.prepare('UPDATE _prisma_migrations SET finished_at = ?, applied_steps_count = 1 WHERE id = ?').run(prismaTime(new Date()), id);
      applied.push(name);
    }
    return applied;
  } finally {
    db.close();
  }
}
