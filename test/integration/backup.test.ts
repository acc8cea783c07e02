// Backup and restore (issue 27): a desktop instance copied while a stream of writes goes on
// restores to a consistent instance (every committed row and every file its rows name, nothing
// half-written); on PostgreSQL, the pg_dump route docs/operations.md gives, the same way.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { runCli } from '../../clients/cli/src/run.js';
import { backupSqlite, checkBackup, restoreSqlite } from '../../server/services/backup.js';
import { newPipeline, rawRequest, unique, V1 } from '../support/api.js';
import { createPgDatabase, testDbKind } from '../support/database.js';
import { writeZip, xArchive } from '../support/exports.js';
import { noise, upload as uploadImage } from '../support/images.js';
import { waitForRun } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';

const sqliteOnly = testDbKind() === 'sqlite';
const scratch = mkdtempSync(path.join(os.tmpdir(), 'cp-backup-'));
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function uploadExport(handle: string, seed: number) {
  const zip = (await writeZip(xArchive({ posts: 30, seed }).files))!;
  const qs = new URLSearchParams({ handle, idempotency_key: newIdempotencyKey() });
  const r = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': 'application/zip' }, body: new Uint8Array(zip) });
  expect(r.res.status, r.text).toBeLessThan(300);
}

/** A pipeline whose ingest run has ended (its body no longer changes by itself). */
async function settledPipeline(): Promise<string> {
  const { pipeline_id, run_id } = await newPipeline(s, { handle: '@ada@mastodon.example', intent: unique('before') });
  await waitForRun(s.running.deps, run_id);
  return pipeline_id;
}

/** Writes until `stop()`: new pipelines, images, and exports that supersede (and delete) the blob of the one before. */
function writeStream() {
  let running = true;
  let n = 0;
  const loop = (async () => {
    while (running) {
      n++;
      await newPipeline(s, { handle: '@ada@mastodon.example', intent: unique('stream') });
      expect((await uploadImage(s, await noise(16 + (n % 7), 12))).status).toBe(201);
      await uploadExport('stream-export', 100 + n);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return n;
    },
  };
}

describe.runIf(sqliteOnly)('cpa admin backup / restore (SQLite)', () => {
  const file = path.join(scratch, 'backup.tar.gz');
  let before: { pipelineIds: string[]; bodies: Map<string, string> };

  it('backs up while writes go on, and restores every committed row and the files its rows name', async () => {
    for (let i = 0; i < 3; i++) await uploadExport(`export-${i}`, i + 1);
    for (let i = 0; i < 3; i++) expect((await uploadImage(s, await noise(20 + i, 10))).status).toBe(201);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await settledPipeline());
    before = { pipelineIds: ids, bodies: new Map() };
    for (const id of ids) before.bodies.set(id, JSON.stringify(await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id } } }))));

    const stream = writeStream();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const manifest = await backupSqlite(s.db.dataDir, file);
    const writes = await stream.stop();
    expect(writes).toBeGreaterThan(0);
    expect(manifest.rows.Pipeline).toBeGreaterThanOrEqual(4);

    const restored = path.join(scratch, 'restored');
    await restoreSqlite(restored, file);
    const db = new Sqlite(path.join(restored, 'content-pipeline.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const have = new Set((db.prepare('SELECT id FROM Pipeline').all() as { id: string }[]).map((r) => r.id));
      for (const id of ids) expect(have.has(id)).toBe(true);
      // every file a row names is there, complete: an image's bytes hash to its row's sha256
      const media = db.prepare('SELECT blobId, sha256, sizeBytes FROM MediaUpload').all() as { blobId: string; sha256: string; sizeBytes: number }[];
      expect(media.length).toBeGreaterThanOrEqual(3);
      for (const m of media) {
        const bytes = readFileSync(path.join(restored, 'blobs', m.blobId));
        expect(bytes.length).toBe(m.sizeBytes);
        expect(sha256(bytes)).toBe(m.sha256);
      }
      const imports = db.prepare('SELECT blobId, sizeBytes FROM "Import" WHERE blobId IS NOT NULL').all() as { blobId: string; sizeBytes: number }[];
      expect(imports.length).toBeGreaterThanOrEqual(3);
      for (const i of imports) expect(readFileSync(path.join(restored, 'blobs', i.blobId)).length).toBe(i.sizeBytes);
      // and nothing else: a file no row names is left out
      expect(readdirSync(path.join(restored, 'blobs')).sort()).toEqual([...new Set([...media, ...imports].map((b) => b.blobId))].sort());
    } finally {
      db.close();
    }
    // the token file and the credentials key came along: a server on the restored directory answers the same
    expect(readFileSync(path.join(restored, 'agent-token'), 'utf8')).toBe(readFileSync(path.join(s.db.dataDir, 'agent-token'), 'utf8'));
    const copy = await startTestServer({ db: { kind: 'sqlite', dataDir: restored, databaseUrl: null, drop: async () => {} } });
    try {
      expect(copy.token).toBe(s.token);
      for (const id of ids)
        expect(JSON.stringify(await unwrap(copy.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id } } })))).toBe(before.bodies.get(id));
    } finally {
      await copy.stop();
    }
  });

  it('refuses a data directory that holds an instance unless --replace, which moves it aside', async () => {
    const target = path.join(scratch, 'restored');
    await expect(restoreSqlite(target, file)).rejects.toThrow(/already holds a database.*--replace/);
    const { movedAside } = await restoreSqlite(target, file, { replace: true });
    expect(movedAside).not.toBeNull();
    expect(existsSync(path.join(movedAside!, 'content-pipeline.db'))).toBe(true);
    expect(existsSync(path.join(target, 'content-pipeline.db'))).toBe(true);
  });

  it('refuses a damaged or foreign archive before writing anything', async () => {
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    damaged[Math.floor(damaged.length / 2)] ^= 0xff;
    writeFileSync(path.join(scratch, 'damaged.tar.gz'), damaged);
    const target = path.join(scratch, 'never');
    await expect(restoreSqlite(target, path.join(scratch, 'damaged.tar.gz'))).rejects.toThrow(/damaged|not a readable backup/);
    expect(existsSync(path.join(target, 'content-pipeline.db'))).toBe(false);
    writeFileSync(path.join(scratch, 'foreign.tar.gz'), (await writeZip([{ name: 'hello.txt', data: Buffer.from('hi') }]))!);
    await expect(restoreSqlite(target, path.join(scratch, 'foreign.tar.gz'))).rejects.toThrow(/not a readable backup/);
    expect((await checkBackup(file, path.join(scratch, 'check'))).files.length).toBeGreaterThan(3);
  });

  it('works from the command line, and restore refuses while a server answers on the configured port', async () => {
    const out = path.join(scratch, 'cli-backup.tar.gz');
    const env = { DATA_DIR: s.db.dataDir, PORT: new URL(s.url).port };
    const made = await runCli(['admin', 'backup', out], { env });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/Backed up .* pipelines/);
    const refused = await runCli(['admin', 'restore', out, '--replace'], { env });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(/stop it before restoring/);
    const pgRefused = await runCli(['admin', 'backup', out], { env: { ...env, DATABASE_URL: 'postgresql://cpa@127.0.0.1:1/x' } });
    expect(pgRefused.code).toBe(2);
    expect(pgRefused.stderr).toMatch(/pg_dump/);
  });
});

describe.runIf(!sqliteOnly)('pg_dump / pg_restore (PostgreSQL)', () => {
  const bin = (name: string) => ['/usr/lib/postgresql/15/bin', '/usr/bin'].map((d) => path.join(d, name)).find(existsSync) ?? name;

  it('restores a dump taken during writes to a consistent instance, uploaded files included', async () => {
    for (let i = 0; i < 2; i++) await uploadExport(`pg-export-${i}`, i + 1);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await settledPipeline());
    const bodies = new Map<string, string>();
    for (const id of ids) bodies.set(id, JSON.stringify(await unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id } } }))));
    const stream = writeStream();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const dump = path.join(scratch, 'pg.dump');
    execFileSync(bin('pg_dump'), ['--format=custom', '--no-owner', `--file=${dump}`, s.db.databaseUrl!]);
    await stream.stop();
    const target = await createPgDatabase(false);
    try {
      execFileSync(bin('pg_restore'), ['--no-owner', `--dbname=${target.url}`, dump]);
      const c = new pg.Client({ connectionString: target.url });
      await c.connect();
      try {
        // every uploaded export's bytes are there whole: its chunks add up to its size
        const { rows } = await c.query<{ id: string; size: string; stored: string | null }>(
          `SELECT i."blobId" AS id, i."sizeBytes" AS size, (SELECT sum(length(b."data")) FROM "BlobChunk" b WHERE b."blobId" = i."blobId") AS stored FROM "Import" i WHERE i."blobId" IS NOT NULL`,
        );
        expect(rows.length).toBeGreaterThanOrEqual(2);
        for (const r of rows) expect(Number(r.stored)).toBe(Number(r.size));
      } finally {
        await c.end();
      }
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cp-pgrestore-'));
      const copy = await startTestServer({ db: { kind: 'postgresql', dataDir, databaseUrl: target.url, drop: async () => {} } });
      try {
        for (const id of ids)
          expect(JSON.stringify(await unwrap(copy.client(s.token).GET(`${V1}/pipelines/{id}`, { params: { path: { id } } })))).toBe(bodies.get(id));
      } finally {
        await copy.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    } finally {
      await target.drop();
    }
  });
});
