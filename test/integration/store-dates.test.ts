// Dates through the store's Kysely layer are stored exactly as Prisma 6.19's driver adapters
// stored them (issue 12), so that databases written by the previous code keep working untouched:
// - SQLite: ISO-8601 text with an explicit offset, `2026-11-22T17:00:05.252+00:00`
//   (@prisma/adapter-better-sqlite3's default `timestampFormat: "iso8601"`);
// - PostgreSQL: `timestamp(3)` without time zone, holding UTC (@prisma/adapter-pg).
// Both were checked against Prisma Client 6.19 itself before it left the runtime: each read the
// other's rows, in a process whose local time zone was not UTC. The literals below are what it wrote.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import path from 'node:path';
import { openDatabase, type DatabaseHandle } from '../../server/store/database.js';
import { claimRuns, findRunById, insertRun } from '../../server/store/runs.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

const at = new Date('2026-11-22T17:00:05.252Z');

describe('dates in the store', () => {
  let tdb: TestDatabase;
  let h: DatabaseHandle;
  const tz = process.env.TZ;

  beforeAll(async () => {
    // A local time zone other than UTC: pg's defaults would shift `timestamp` values by it.
    process.env.TZ = 'America/New_York';
    tdb = await createTestDatabase();
    h = await openDatabase({ dataDir: tdb.dataDir, databaseUrl: tdb.databaseUrl });
  });
  afterAll(async () => {
    await h?.close();
    await tdb?.drop();
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  /** Runs SQL on the database with the bare driver (no store, no conversions). */
  async function raw<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (h.provider === 'sqlite') {
      const db = new Sqlite(path.join(tdb.dataDir, 'content-pipeline.db'));
      try {
        const stmt = db.prepare(sql);
        return stmt.reader ? (stmt.all(...params) as T[]) : (stmt.run(...params), []);
      } finally {
        db.close();
      }
    }
    const c = new pg.Client({ connectionString: tdb.databaseUrl! });
    await c.connect();
    try {
      return (await c.query(sql, params)).rows as T[];
    } finally {
      await c.end();
    }
  }

  it('reads a row as Prisma wrote it', async () => {
    const stored = h.provider === 'sqlite' ? '2026-11-22T17:00:05.252+00:00' : '2026-11-22 17:00:05.252';
    await raw(
      `INSERT INTO "Run" ("id", "workspaceId", "kind", "status", "input", "createdAt", "runAfter") VALUES ('run_prisma', 'ws', 'draft', 'queued', '{}', ${h.provider === 'sqlite' ? '?, ?' : '$1, $1'})`,
      h.provider === 'sqlite' ? [stored, stored] : [stored],
    );
    const run = await findRunById(h.db, 'run_prisma');
    expect(run?.createdAt).toBeInstanceOf(Date);
    expect(run?.createdAt.toISOString()).toBe(at.toISOString());
    expect(run?.runAfter.getTime()).toBe(at.getTime());
    expect(run?.startedAt).toBeNull();
    // Comparisons against it hold (on SQLite they compare the text).
    const claimed = await claimRuns(h.db, h.provider, { workerId: 'wrk_t', now: at, lockedUntil: new Date(at.getTime() + 1000), limit: 5 });
    expect(claimed.map((r) => r.id)).toEqual(['run_prisma']);
    expect(claimed[0]!.startedAt?.getTime()).toBe(at.getTime());
  });

  it('writes a row in the form Prisma reads', async () => {
    await insertRun(h.db, { id: 'run_kysely', workspaceId: 'ws', pipelineId: null, kind: 'draft', input: {}, now: at });
    const sql =
      h.provider === 'sqlite'
        ? `SELECT "createdAt" AS c, typeof("createdAt") AS t FROM "Run" WHERE "id" = 'run_kysely'`
        : `SELECT "createdAt"::text AS c FROM "Run" WHERE "id" = 'run_kysely'`;
    const [row] = await raw<{ c: string; t?: string }>(sql);
    if (h.provider === 'sqlite') expect(row).toEqual({ c: '2026-11-22T17:00:05.252+00:00', t: 'text' });
    else expect(row?.c).toBe('2026-11-22 17:00:05.252');
  });

  it.runIf(process.env.TEST_DATABASE !== 'postgresql')('reads a SQLite CURRENT_TIMESTAMP default as UTC', async () => {
    await raw(`INSERT INTO "Workspace" ("id", "name") VALUES ('ws_default', 'w')`);
    const [row] = await raw<{ c: string }>(`SELECT "createdAt" AS c FROM "Workspace" WHERE "id" = 'ws_default'`);
    const ws = await h.db.selectFrom('Workspace').selectAll().where('id', '=', 'ws_default').executeTakeFirstOrThrow();
    expect(ws.createdAt.toISOString()).toBe(`${row!.c.replace(' ', 'T')}.000Z`);
  });
});
