// The SQLite migrations applied in process at start (server/store/migrations.ts) make exactly the
// database the Prisma CLI makes, and record them as the CLI records them, so that the CLI keeps
// working on a data directory the server created (issue 27: a fresh start without the CLI).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { applySqliteMigrations } from '../../server/store/migrations.js';

const root = path.resolve(import.meta.dirname, '../..');
const migrations = path.join(root, 'prisma', 'sqlite', 'migrations');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'cp-migrations-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function schemaOf(file: string) {
  const db = new Sqlite(file, { readonly: true });
  try {
    return {
      objects: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all(),
      history: db.prepare('SELECT migration_name, checksum, applied_steps_count, logs, rolled_back_at FROM _prisma_migrations ORDER BY migration_name').all(),
    };
  } finally {
    db.close();
  }
}

describe('SQLite migrations applied in process', () => {
  const ours = path.join(scratch, 'ours.db');

  it('make the same schema and history as `prisma migrate deploy` (the test template)', () => {
    const applied = applySqliteMigrations(ours, migrations);
    expect(applied.length).toBeGreaterThan(0);
    const cli = schemaOf(inject('sqliteTemplate'));
    const mine = schemaOf(ours);
    expect(mine.objects).toEqual(cli.objects);
    expect(mine.history).toEqual(cli.history);
    expect(mine.history.map((h) => (h as { migration_name: string }).migration_name)).toEqual(applied);
  });

  it('apply nothing the second time', () => {
    expect(applySqliteMigrations(ours, migrations)).toEqual([]);
  });

  it('leave a history the Prisma CLI reads as up to date', () => {
    const out = execFileSync(
      process.execPath,
      [path.join(root, 'node_modules/prisma/build/index.js'), 'migrate', 'status', '--config', 'prisma/sqlite.config.ts'],
      {
        cwd: root,
        env: { ...process.env, PRISMA_SQLITE_URL: `file:${ours}` },
        encoding: 'utf8',
      },
    );
    expect(out).toContain('Database schema is up to date');
  });

  it('record a failing migration as Prisma does, and refuse to go on until someone resolves it', () => {
    const dir = path.join(scratch, 'broken-migrations');
    cpSync(migrations, dir, { recursive: true });
    mkdirSync(path.join(dir, '29991231000000_broken'));
    writeFileSync(path.join(dir, '29991231000000_broken', 'migration.sql'), 'CREATE TABLE "Fine" ("id" TEXT);\nCREATE TABLE "Oops" (;\n');
    const file = path.join(scratch, 'broken.db');
    expect(() => applySqliteMigrations(file, dir)).toThrow(/29991231000000_broken/);
    const db = new Sqlite(file, { readonly: true });
    const row = db.prepare("SELECT finished_at, logs FROM _prisma_migrations WHERE migration_name = '29991231000000_broken'").get() as {
      finished_at: string | null;
      logs: string | null;
    };
    db.close();
    expect(row.finished_at).toBeNull();
    expect(row.logs).toMatch(/syntax error/);
    expect(() => applySqliteMigrations(file, dir)).toThrow(/needs attention: 29991231000000_broken/);
  });
});
