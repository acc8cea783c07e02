// Opens the database through Prisma's driver adapters (SQLite by default, PostgreSQL when
// DATABASE_URL is set) and applies the migrations. Nothing outside server/store touches Prisma.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import Sqlite from 'better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.js';
import { PrismaClient as PgClient } from './generated/postgresql/client.js';
import { migrateSerialized, runCli } from './migrations.js';
import { projectRootOf } from '../lib/project-root.js';

/** The models are the same on both providers, so one client type serves the store. */
export type Db = SqliteClient;
export type Provider = 'sqlite' | 'postgresql';

export interface DatabaseHandle {
  db: Db;
  provider: Provider;
  close(): Promise<void>;
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
    throw new Error(`Database migration failed: ${e.stderr || e.stdout || e.message}`);
  }
}

/** True when the SQLite file exists and records every migration of prisma/sqlite/migrations as applied. */
function sqliteUpToDate(file: string): boolean {
  if (!existsSync(file)) return false;
  const wanted = readdirSync(path.join(root, 'prisma', 'sqlite', 'migrations'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const db = new Sqlite(file, { readonly: true, fileMustExist: true });
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'").get()) return false;
    const rows = db.prepare('SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL').all() as Array<{ migration_name: string }>;
    const done = new Set(rows.map((r) => r.migration_name));
    return wanted.every((name) => done.has(name));
  } finally {
    db.close();
  }
}

export async function openDatabase(opts: { dataDir: string; databaseUrl: string | null }): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    // Serialized across instances starting together, and skipped when nothing is missing (migrations.ts).
    const url = opts.databaseUrl;
    await migrateSerialized(url, path.join(root, 'prisma', 'postgresql', 'migrations'), () => migrate('postgresql', url));
    const adapter = new PrismaPg({ connectionString: opts.databaseUrl, max: 10 });
    const db = new PgClient({ adapter }) as unknown as Db;
    await db.$connect();
    return { db, provider: 'postgresql', close: () => db.$disconnect() };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const url = sqliteUrl(opts.dataDir);
  // Skipped when nothing is missing, as on PostgreSQL: the CLI's schema engine cannot get its lock
  // on a file a running server has open, which broke `cpa admin workspace create` beside a server.
  if (!sqliteUpToDate(url.slice('file:'.length))) await migrate('sqlite', url);
  const adapter = new PrismaBetterSQLite3({ url });
  const db = new SqliteClient({ adapter });
  await db.$connect();
  // WAL lets readers run beside the writer; synchronous=FULL makes every commit durable.
  await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await db.$queryRawUnsafe('PRAGMA synchronous = FULL');
  await db.$queryRawUnsafe('PRAGMA busy_timeout = 5000');
  await db.$queryRawUnsafe('PRAGMA foreign_keys = ON');
  return { db, provider: 'sqlite', close: () => db.$disconnect() };
}
