// A database of the kind under test at the schema before one migration, to check that the
// migration carries existing data over: `beforeMigration(name)` deploys every migration but that
// one (with a Prisma config of its own), `sql` writes the rows a database of that time had, and
// `migrate()` adds the migration and deploys it.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { runCli } from '../../server/store/migrations.js';
import { createPgDatabase, testDbKind } from './database.js';
import { projectRoot } from '../../shared/spec.js';

export interface BeforeMigration {
  kind: 'sqlite' | 'postgresql';
  url: string;
  /** Runs statements with `?` placeholders; the rows of the last. */
  sql(statements: Array<[string, unknown[]]>): Promise<Array<Record<string, unknown>>>;
  /** Adds the migration and deploys it. */
  migrate(): Promise<void>;
  /** Removes the files and drops the PostgreSQL database. */
  cleanup(): Promise<void>;
}

export async function beforeMigration(migration: string): Promise<BeforeMigration> {
  const kind = testDbKind();
  const work = path.join(projectRoot, 'data', `migration-test-${process.pid}-${migration}`);
  const dir = path.join(work, kind);
  const from = path.join(projectRoot, 'prisma', kind);
  mkdirSync(path.join(dir, 'migrations'), { recursive: true });
  for (const d of readdirSync(path.join(from, 'migrations'), { withFileTypes: true }))
    if (d.name !== migration && d.name !== 'schema.snapshot.prisma')
      cpSync(path.join(from, 'migrations', d.name), path.join(dir, 'migrations', d.name), { recursive: true });
  cpSync(path.join(from, 'schema.prisma'), path.join(dir, 'schema.prisma'));
  const config = readFileSync(path.join(projectRoot, 'prisma', `${kind}.config.ts`), 'utf8').replaceAll(
    "path.join(import.meta.dirname, '" + kind + "', ",
    'path.join(import.meta.dirname, ',
  );
  const file = path.join(dir, `${kind}.config.ts`);
  writeFileSync(file, config);
  let url: string;
  let drop: (() => Promise<void>) | null = null;
  if (kind === 'sqlite') url = `file:${path.join(work, 'old.db')}`;
  else {
    const created = await createPgDatabase();
    drop = created.drop;
    url = created.url;
  }
  const deploy = async () => {
    const env = { ...process.env, ...(kind === 'sqlite' ? { PRISMA_SQLITE_URL: url } : { DATABASE_URL: url }) };
    await runCli([path.join(projectRoot, 'node_modules', 'prisma', 'build', 'index.js'), 'migrate', 'deploy', '--config', file], { env, cwd: projectRoot });
  };
  await deploy();
  return {
    kind,
    url,
    sql: (statements) => sqlOn(kind, url, statements),
    migrate: async () => {
      cpSync(path.join(from, 'migrations', migration), path.join(dir, 'migrations', migration), { recursive: true });
      await deploy();
    },
    cleanup: async () => {
      rmSync(work, { recursive: true, force: true });
      await drop?.();
    },
  };
}

async function sqlOn(kind: 'sqlite' | 'postgresql', url: string, statements: Array<[string, unknown[]]>): Promise<Array<Record<string, unknown>>> {
  if (kind === 'sqlite') {
    const db = new Sqlite(url.slice('file:'.length));
    try {
      let rows: Array<Record<string, unknown>> = [];
      for (const [q, params] of statements) {
        const st = db.prepare(q);
        rows = st.reader ? (st.all(...params) as Array<Record<string, unknown>>) : (st.run(...params), []);
      }
      return rows;
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Array<Record<string, unknown>> = [];
    for (const [q, params] of statements) {
      let n = 0;
      rows = (
        await client.query(
          q.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as Array<Record<string, unknown>>;
    }
    return rows;
  } finally {
    await client.end();
  }
}
