// Moving a workspace (issue 27 item 4): a realistic workspace of a SQLite desktop instance (an X
// archive of a few thousand posts imported through POST /imports, drafts with variants, an uploaded
// image on a draft, a scheduled artifact, a Mastodon account) exported with `cpa admin workspace
// export` and imported into a PostgreSQL instance (SQLite when no TEST_PG_ADMIN_URL is given)
// answers the same GETs with the same bodies, ids included, to the token the import issued (the
// old instance's token is not carried); a second import is refused; the
// account's secret is absent from the archive's bytes without --with-secrets and only encrypted
// with it. On a PostgreSQL run the workspace goes on from there back to SQLite (blobs read from
// the database's chunks). 20,000 posts: `npm run bench -- --only=workspace-move` (BENCHMARKS.md).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { runCli } from '../../clients/cli/src/run.js';
import { findUsableAccount } from '../../server/services/accounts.js';
import { exportWorkspace, importWorkspace } from '../../server/services/workspace-move.js';
import { blobStore } from '../../server/store/blobs.js';
import { databaseTables, WORKSPACE_TABLES } from '../../server/store/workspace-archive.js';
import { asAccepted, connect, draftAndWait, ingest, listAllPosts, moveArtifact, publishRequest, rawRequest, startPipeline, V1 } from '../support/api.js';
import { testDbKind } from '../support/database.js';
import { writeZip, xArchive } from '../support/exports.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { noise, upload as uploadImage } from '../support/images.js';
import { mastodonStatus, startMastodonFake } from '../support/platforms.js';
import { countRows, deleteRows, findRow, insertRow } from '../support/rows.js';
import { expectRunSucceeded } from '../support/runs.js';
import { workspaceOf } from '../support/seed.js';
import { startTestServer, type TestServer } from '../support/server.js';

const POSTS = 3000;
const targetKind = process.env.TEST_PG_ADMIN_URL ? 'postgresql' : 'sqlite';
const scratch = mkdtempSync(path.join(os.tmpdir(), 'cp-move-'));
const passphraseFile = path.join(scratch, 'passphrase');
const PASSPHRASE = 'correct horse battery staple ✓';
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let src: TestServer;
const started: TestServer[] = [];
let workspaceId: string;
const gets: string[] = [];
/** The token an import issued, per instance (the source's own token works only on the source). */
const issued = new Map<TestServer, string>();
const tokenOn = (s: TestServer) => issued.get(s) ?? src.token;

const startTarget = async (kind: 'sqlite' | 'postgresql') => {
  const t = await startTestServer({ kind, env: { JOB_POLL_MS: '60000' } });
  started.push(t);
  return t;
};

/** A GET's body as the source token sees it, a list's cursor reduced to its unsigned position (the signature is the instance's own key). */
async function body(s: TestServer, url: string): Promise<unknown> {
  const r = await rawRequest(s, `${V1}${url}`, { token: tokenOn(s) });
  expect(r.res.status, `${url}: ${r.text}`).toBe(200);
  const b = JSON.parse(r.text) as Record<string, unknown>;
  if (typeof b.next_cursor === 'string') b.next_cursor = b.next_cursor.split('.')[0];
  return b;
}

beforeAll(async () => {
  writeFileSync(passphraseFile, `${PASSPHRASE}\n`);
  mastodon = await startMastodonFake({ statuses: [mastodonStatus(1), mastodonStatus(2)] });
  src = await startTestServer({ kind: 'sqlite', env: { ...outboundEnvFor(mastodon.fake), JOB_POLL_MS: '50' } });
  workspaceId = await workspaceOf(src.running.deps, src.token);

  // The X archive, through POST /imports, and its pipeline.
  const zip = (await writeZip(xArchive({ posts: POSTS, seed: 27, partSize: 1000 }).files))!;
  const qs = new URLSearchParams({ handle: 'ada-x-2024', idempotency_key: newIdempotencyKey() });
  const imported = await rawRequest(src, `${V1}/imports?${qs}`, { method: 'POST', headers: { 'Content-Type': 'application/zip' }, body: new Uint8Array(zip) });
  expect(imported.res.status, imported.text).toBe(201);
  const x = await ingest(src, 'ada-x-2024');
  const posts = await listAllPosts(src, x.pipeline_id);

  // Drafts with variants, a re-draft (genealogy), an uploaded image on one.
  const drafts: string[] = [];
  for (const p of posts.slice(0, 3)) drafts.push((await draftAndWait(src, p.id, { targets: ['mastodon', 'bluesky', 'x'] })).artifact.id);
  drafts.push((await draftAndWait(src, posts[0]!.id, { parent_artifact_id: drafts[0]! })).artifact.id);
  const image = await uploadImage(src, await noise(24, 16), { alt_text: 'A chart of the week 📈 週' });
  expect(image.status).toBe(201);
  const put = await src.client().PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: drafts[1]! } }, body: { media: [{ id: image.json.id }] } });
  expect(put.response.status).toBe(200);

  // A Mastodon account, its pipeline, and a scheduled artifact (a queued publish run).
  await connect(src, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
  const m = await ingest(src, mastodon.handle);
  const mPost = (await listAllPosts(src, m.pipeline_id))[0]!;
  const toSchedule = (await draftAndWait(src, mPost.id)).artifact.id;
  await moveArtifact(src, toSchedule, 'ready');
  const scheduled = asAccepted(await unwrap(publishRequest(src, toSchedule, { at: new Date(Date.now() + 30 * 86_400_000).toISOString() })));
  expect(scheduled.artifact.state).toBe('scheduled');

  gets.push(`/pipelines/${x.pipeline_id}`, `/pipelines/${m.pipeline_id}`, `/runs/${x.run_id}`, `/runs/${scheduled.run.run_id}`, `/media/${image.json.id}`);
  gets.push(`/imports/${(JSON.parse(imported.text) as { id: string }).id}`, `/pipelines/${m.pipeline_id}/schedule`);
  for (const id of [...drafts, toSchedule]) gets.push(`/artifacts/${id}`);
}, 180_000);

afterAll(async () => {
  await src?.stop();
  for (const t of started) await t.stop();
  await mastodon?.fake.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Every page of a pipeline's posts, on one instance. */
async function postPages(s: TestServer, pipelineId: string): Promise<unknown[]> {
  const pages: unknown[] = [];
  let cursor: string | null = null;
  do {
    const r = await rawRequest(s, `${V1}/pipelines/${pipelineId}/posts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      token: tokenOn(s),
    });
    expect(r.res.status, r.text).toBe(200);
    const b = JSON.parse(r.text) as { next_cursor: string | null };
    cursor = b.next_cursor;
    pages.push({ ...b, next_cursor: cursor?.split('.')[0] ?? null });
  } while (cursor);
  return pages;
}

async function sameAnswers(a: TestServer, b: TestServer) {
  for (const url of gets) expect(await body(b, url), url).toEqual(await body(a, url));
  for (const url of gets.filter((g) => /^\/pipelines\/[^/]+$/.test(g))) {
    const id = url.split('/')[2]!;
    const pages = await postPages(a, id);
    expect(await postPages(b, id)).toEqual(pages);
  }
}

describe('every table is exported or left out on purpose', () => {
  it('WORKSPACE_TABLES names each table of the database', async () => {
    const tables = await databaseTables(src.running.deps.db, 'sqlite');
    expect(tables.filter((t) => !(t in WORKSPACE_TABLES))).toEqual([]);
    expect(Object.keys(WORKSPACE_TABLES).sort()).toEqual(tables);
  });
});

describe(`SQLite → ${targetKind}`, () => {
  const plain = path.join(scratch, 'plain.tar.gz');
  const sealed = path.join(scratch, 'sealed.tar.gz');
  let dst: TestServer;

  it('exports from the command line, with and without secrets; the secret is never in the bytes in the clear', async () => {
    const env = { DATA_DIR: src.db.dataDir };
    const a = await runCli(['admin', 'workspace', 'export', plain], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toMatch(/Exported workspace ws_\S+ .*posts/);
    const b = await runCli(['admin', 'workspace', 'export', sealed, '--with-secrets', '--passphrase-file', passphraseFile], { env });
    expect(b.code, b.stderr).toBe(0);
    const noPass = await runCli(['admin', 'workspace', 'export', sealed, '--with-secrets'], { env });
    expect(noPass.code).toBe(2);
    for (const f of [plain, sealed]) {
      const tarBytes = gunzipSync(readFileSync(f));
      expect(tarBytes.includes(Buffer.from(mastodon.state.token)), f).toBe(false);
      expect(tarBytes.includes(Buffer.from('README.md'))).toBe(true);
      expect(tarBytes.includes(Buffer.from(`tables/SourcePost.jsonl`))).toBe(true);
    }
    const accounts = (text: Buffer) =>
      text
        .toString('latin1')
        .match(/\{"id":"acc_[^\n]*/g)!
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const plainAccounts = accounts(gunzipSync(readFileSync(plain)));
    expect(plainAccounts.find((x) => x.platform === 'mastodon')).toMatchObject({ credentials: null, proxyUrl: null });
    const sealedAccounts = accounts(gunzipSync(readFileSync(sealed)));
    expect(sealedAccounts.find((x) => x.platform === 'mastodon')?.credentials).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('imports into another instance keeping every id: the same GETs answer the same bodies, with the token the import issued', async () => {
    dst = await startTarget(targetKind);
    const out = await importWorkspace(dst.running.deps, sealed, { passphrase: PASSPHRASE, scratch: path.join(scratch, 'in-1') });
    expect(out.manifest.workspace_id).toBe(workspaceId);
    // The archive carries no token: the old instance's grants nothing here, the new one is the workspace's.
    expect(out.manifest.tables.map((t) => t.table)).not.toContain('AgentToken');
    expect(out.token).toMatch(/^[0-9a-f]{64}$/);
    expect((await rawRequest(dst, `${V1}${gets[0]!}`, { token: src.token })).res.status).toBe(401);
    issued.set(dst, out.token);
    expect(out.accountsToReconnect).toBe(0);
    // The secret came through the passphrase and is sealed with this instance's key now.
    const account = await findUsableAccount(dst.running.deps, workspaceId, 'mastodon', mastodon.handle);
    expect(account?.creds.secret).toBe(mastodon.state.token);
    expect(account?.account.status).toBe('active');
    expect(await countRows(dst.running.deps.db, 'SourcePost', { workspaceId })).toBe(await countRows(src.running.deps.db, 'SourcePost', { workspaceId }));
    await sameAnswers(src, dst);
    // The image's and the archive's bytes came along.
    for (const table of ['MediaUpload', 'Import'] as const) {
      const row = await findRow(src.running.deps.db, table, { workspaceId });
      const read = async (s: TestServer) =>
        Buffer.concat(
          await blobStore(s.running.deps.db, s.running.deps.provider, s.db.dataDir)
            .read(row.blobId!, 0, 1 << 30)
            .toArray(),
        );
      const bytes = await read(src);
      expect(bytes.length).toBe(Number(row.sizeBytes));
      expect((await read(dst)).equals(bytes)).toBe(true);
    }
  }, 90_000);

  it('refuses a second import of the same archive, changing nothing', async () => {
    const posts = await countRows(dst.running.deps.db, 'SourcePost');
    await expect(importWorkspace(dst.running.deps, sealed, { passphrase: PASSPHRASE, scratch: path.join(scratch, 'in-2') })).rejects.toThrow(
      new RegExp(`Workspace ${workspaceId} exists on this instance already`),
    );
    expect(await countRows(dst.running.deps.db, 'SourcePost')).toBe(posts);
    await sameAnswers(src, dst);
  });

  it('refuses a wrong passphrase and a damaged archive before writing anything', async () => {
    const other = await startTarget('sqlite');
    await expect(importWorkspace(other.running.deps, sealed, { passphrase: 'not the passphrase at all', scratch: path.join(scratch, 'in-3') })).rejects.toThrow(
      /passphrase does not open/,
    );
    await expect(importWorkspace(other.running.deps, sealed, { scratch: path.join(scratch, 'in-4') })).rejects.toThrow(/--passphrase-file/);
    const damaged = Buffer.from(readFileSync(plain));
    damaged[Math.floor(damaged.length / 2)] ^= 0xff;
    writeFileSync(path.join(scratch, 'damaged.tar.gz'), damaged);
    await expect(importWorkspace(other.running.deps, path.join(scratch, 'damaged.tar.gz'), { scratch: path.join(scratch, 'in-5') })).rejects.toThrow(
      /damaged|not a readable/,
    );
    expect(await countRows(other.running.deps.db, 'Workspace', { id: workspaceId })).toBe(0);
    expect(await countRows(other.running.deps.db, 'SourcePost')).toBe(0);

    // A transaction that fails (a row of this instance holds one of the archive's ids) leaves
    // nothing: no row, and the blobs written before it removed.
    const xPipeline = gets[0]!.split('/')[2]!;
    const now = new Date();
    await insertRow(other.running.deps.db, 'Pipeline', {
      id: xPipeline,
      workspaceId: 'ws_other',
      handle: 'h',
      intent: 'i',
      platform: 'archive',
      createdAt: now,
      updatedAt: now,
    });
    await expect(importWorkspace(other.running.deps, plain, { scratch: path.join(scratch, 'in-6') })).rejects.toThrow(/holds already: nothing imported/);
    expect(await countRows(other.running.deps.db, 'Workspace', { id: workspaceId })).toBe(0);
    expect(await countRows(other.running.deps.db, 'SourcePost')).toBe(0);
    const blobIds = [
      (await findRow(src.running.deps.db, 'MediaUpload', { workspaceId })).blobId,
      (await findRow(src.running.deps.db, 'Import', { workspaceId })).blobId!,
    ];
    const otherBlobs = blobStore(other.running.deps.db, other.running.deps.provider, other.db.dataDir);
    for (const id of blobIds)
      expect(
        (
          await otherBlobs
            .read(id, 0, 1 << 30)
            .toArray()
            .catch(() => [])
        ).length,
        id,
      ).toBe(0);
    await deleteRows(other.running.deps.db, 'Pipeline', { id: xPipeline });

    // Without secrets: the Mastodon account comes in dead, and diagnose says to connect it again.
    const cli = await runCli(['admin', 'workspace', 'import', plain], { env: { DATA_DIR: other.db.dataDir } });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/1 accounts came without their credentials/);
    // The token it printed, once, is the workspace's on this instance.
    issued.set(other, cli.stdout.trim());
    expect(cli.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    const again = await runCli(['admin', 'workspace', 'import', plain], { env: { DATA_DIR: other.db.dataDir } });
    expect(again.code).toBe(8);
    expect(again.stderr).toMatch(/exists on this instance already/);
    expect((await findRow(other.running.deps.db, 'Account', { workspaceId, platform: 'mastodon' })).status).toBe('dead');
    expect((await findRow(other.running.deps.db, 'Account', { workspaceId, platform: 'archive' })).status).toBe('active');
    const mPipeline = gets[1]!.split('/')[2]!;
    const diagnose = (await body(other, `/pipelines/${mPipeline}/diagnose`)) as { issues: Array<{ code: string; suggested_action: string }> };
    expect(diagnose.issues).toContainEqual(expect.objectContaining({ code: 'credential_dead', suggested_action: 'connect_account' }));
    // The archive pipeline works as before: its account's credentials (no secret) came along.
    const x = await startPipeline(other, 'ada-x-2024', undefined, tokenOn(other));
    await expectRunSucceeded(other.running.deps, x.run_id);
  });

  it.runIf(testDbKind() === 'postgresql')('goes on from PostgreSQL back to SQLite (blobs read from the database)', async () => {
    const back = path.join(scratch, 'back.tar.gz');
    await exportWorkspace(dst.running.deps, back, { workspaceId, passphrase: PASSPHRASE });
    const third = await startTarget('sqlite');
    issued.set(third, (await importWorkspace(third.running.deps, back, { passphrase: PASSPHRASE, scratch: path.join(scratch, 'in-7') })).token);
    await sameAnswers(src, third);
  });
});
