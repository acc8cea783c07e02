// A fresh database for a test file: a temporary SQLite directory, or (TEST_DATABASE=postgresql)
// a new PostgreSQL database created through TEST_PG_ADMIN_URL (scripts/pg-start.sh prints one).
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { inject } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDbKind = 'sqlite' | 'postgresql';
export const testDbKind = (): TestDbKind => (process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite');

export interface TestDatabase {
  kind: TestDbKind;
  dataDir: string;
  databaseUrl: string | null;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_DATABASE=postgresql needs TEST_PG_ADMIN_URL (run `bash scripts/pg-start.sh` to get one)');
  return url;
}

/** The migrated templates made once per run by test/support/global-setup.ts (empty outside vitest's workers). */
function template(key: 'sqliteTemplate' | 'pgTemplate'): string {
  try {
    return inject(key) ?? '';
  } catch {
    return '';
  }
}

export async function createPgDatabase(fromTemplate = false): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new URL(adminUrl());
  const name = `cpa_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  const tmpl = fromTemplate ? template('pgTemplate') : '';
  await client.query(tmpl ? `CREATE DATABASE ${name} TEMPLATE ${tmpl}` : `CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(admin.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin.toString() });
      await c.connect();
      try {
        // PostgreSQL 15 refuses FORCE while an autovacuum worker is in the database (it counts as a
        // backend of another role: 42501, "must be a member of the role whose process is being
        // terminated"); the worker goes away by itself, so try again for a while.
        for (let attempt = 1; ; attempt++) {
          try {
            await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
            break;
          } catch (err) {
            if ((err as { code?: string }).code !== '42501' || attempt >= 40) throw err;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      } finally {
        await c.end();
      }
    },
  };
}

export async function createTestDatabase(kind: TestDbKind = testDbKind()): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-test-'));
  if (kind === 'sqlite') {
    const tmpl = template('sqliteTemplate');
    if (tmpl && existsSync(tmpl)) copyFileSync(tmpl, path.join(dataDir, 'content-pipeline.db'));
    return { kind, dataDir, databaseUrl: null, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  const db = await createPgDatabase(true);
  return {
    kind,
    dataDir,
    databaseUrl: db.url,
    drop: async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
