// Migrating one PostgreSQL database from several instances that start together. Prisma's own
// advisory lock in `migrate deploy` gives up after 10 s, and here the CLI (WASM schema engine)
// holds it until its process exits, about 10 s after it has finished: a second instance starting
// at the same time failed with P1002 (measured; README.md, "Running several instances"). So instances queue on an
// advisory lock of ours, which waits without a time limit, and whoever gets it runs the CLI only
// when a migration is still missing: the others, and every ordinary restart, skip it.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
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
