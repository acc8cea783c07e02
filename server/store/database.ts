// Opens the database through Prisma's driver adapters (SQLite by default, PostgreSQL when
// DATABASE_URL is set) and applies the migrations. Nothing outside server/store touches Prisma.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient as SqliteClient } from './generated/sqlite/client.js';
import { PrismaClient as PgClient } from './generated/postgresql/client.js';

/** The models are the same on both providers, so one client type serves the store. */
export type Db = SqliteClient;
export type Provider = 'sqlite' | 'postgresql';

export interface DatabaseHandle {
  db: Db;
  provider: Provider;
  close(): Promise<void>;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

export function sqliteUrl(dataDir: string): string {
  return `file:${path.join(dataDir, 'content-pipeline.db')}`;
}

/** Applies every pending migration with the Prisma CLI (`migrate deploy`, which takes a lock on PostgreSQL). */
export async function migrate(provider: Provider, url: string): Promise<void> {
  const env = { ...process.env, ...(provider === 'sqlite' ? { PRISMA_SQLITE_URL: url } : { DATABASE_URL: url }) };
  const prismaBin = path.join(root, 'node_modules', 'prisma', 'build', 'index.js');
  try {
    await run(process.execPath, [prismaBin, 'migrate', 'deploy', '--config', path.join(root, 'prisma', `${provider}.config.ts`)], {
      env,
      cwd: root,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`Database migration failed: ${e.stderr || e.stdout || e.message}`);
  }
}

export async function openDatabase(opts: { dataDir: string; databaseUrl: string | null }): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    await migrate('postgresql', opts.databaseUrl);
    const adapter = new PrismaPg({ connectionString: opts.databaseUrl, max: 10 });
    const db = new PgClient({ adapter }) as unknown as Db;
    await db.$connect();
    return { db, provider: 'postgresql', close: () => db.$disconnect() };
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const url = sqliteUrl(opts.dataDir);
  await migrate('sqlite', url);
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
