// Runs once per `vitest run`: migrates one template database per provider, so that each test
// file's fresh database is a copy (SQLite: a file copy; PostgreSQL: CREATE DATABASE … TEMPLATE)
// instead of a run of the Prisma CLI (seconds each). The server still checks at start that every
// migration is applied, so a stale template would show up as a migration run, not as a wrong schema.
// It also builds the compiled `cpa` (clients/cli/dist) when it is missing or older than a source,
// since the end-to-end tests run that build and refuse a stale one (CPA_REQUIRE_COMPILED).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate, sqliteUrl } from '../../server/store/database.js';
import { createPgDatabase } from './database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    sqliteTemplate: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  execFileSync(process.execPath, ['scripts/build.mjs', 'cli', '--if-stale'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cp-template-'));
  const url = sqliteUrl(dir);
  await migrate('sqlite', url);
  project.provide('sqliteTemplate', url.slice('file:'.length));
  let dropPg: (() => Promise<void>) | null = null;
  if (process.env.TEST_DATABASE === 'postgresql') {
    const tmpl = await createPgDatabase();
    await migrate('postgresql', tmpl.url);
    project.provide('pgTemplate', new URL(tmpl.url).pathname.slice(1));
    dropPg = tmpl.drop;
  } else {
    project.provide('pgTemplate', '');
  }
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    await dropPg?.();
  };
}
