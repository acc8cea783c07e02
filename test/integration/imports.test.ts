// Imports of real-format exports through the HTTP API: the archive as downloaded (ZIP, tar.gz,
// bare file) streamed as the body, checked and counted before the answer, retry-safe with an
// idempotency key, then ingested by a pipeline with progress; private content kept out; bad
// archives refused naming what is wrong, leaving nothing behind.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newIdempotencyKey, unwrap } from '../../clients/typescript/src/index.js';
import { linkedInArchive, mastodonArchive, writeTarGz, writeZip, xArchive } from '../support/exports.js';
import { ingest, listAllPosts, rawRequest, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

// Archives of MBs and thousands of posts: generous limits for a loaded machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ env: { IMPORT_MAX_BYTES: String(12 * 1024 * 1024) } });
});
afterAll(async () => {
  await s?.stop();
});

async function upload(body: Buffer, query: Record<string, string>, contentType = 'application/zip', token = s.token) {
  const qs = new URLSearchParams({ idempotency_key: newIdempotencyKey(), ...query });
  const r = await rawRequest(s, `${V1}/imports?${qs}`, { method: 'POST', token, headers: { 'Content-Type': contentType }, body: new Uint8Array(body) });
  return { status: r.res.status, headers: r.res.headers, json: r.body as Record<string, any> };
}

async function allPosts(pipelineId: string) {
  const out = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(
      s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } }),
    );
    out.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

const importCount = async () => (await s.running.deps.db.selectFrom('Import').select('id').execute()).length;
const blobFiles = () => (existsSync(path.join(s.db.dataDir, 'blobs')) ? readdirSync(path.join(s.db.dataDir, 'blobs')) : []);
const blobCount = async () =>
  s.db.kind === 'postgresql'
    ? new Set((await s.running.deps.db.selectFrom('BlobChunk').select('blobId').execute()).map((c) => c.blobId)).size
    : blobFiles().length;

describe('an X archive ZIP of several MB', () => {
  const g = xArchive({ posts: 1500, partSize: 600, filler: 2800 });
  let zip: Buffer;
  let first: Record<string, any>;
  const key = 'import-x-archive-0000000001';

  beforeAll(async () => {
    zip = (await writeZip(g.files))!;
  });

  it('is accepted as the raw body, far over the 1 MiB JSON limit, and counted before the answer', async () => {
    expect(zip.length).toBeGreaterThan(1024 * 1024);
    const r = await upload(zip, { handle: 'ada-x-2024', idempotency_key: key });
    expect(r.status).toBe(201);
    first = r.json;
    expect(first).toMatchObject({ handle: 'ada-x-2024', format: 'x', container: 'zip', status: 'ready', size_bytes: zip.length, include_non_public: false });
    expect(first.summary.posts).toBe(g.publicPosts.size);
    expect(first.summary.skipped).toMatchObject(g.skipped);
    expect(first.account).toMatchObject({ platform: 'archive', handle: 'ada-x-2024', status: 'active' });
    expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
    const again = await unwrap(s.client().GET(`${V1}/imports/{id}`, { params: { path: { id: first.id } } }));
    expect(again.id).toBe(first.id);
  });

  it('a retry with the same key and bytes answers the first import; other bytes with that key are refused', async () => {
    const replay = await upload(zip, { handle: 'ada-x-2024', idempotency_key: key });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.id).toBe(first.id);
    const other = await upload(zip.subarray(0, 100), { handle: 'ada-x-2024', idempotency_key: key });
    expect(other.status).toBe(422);
    expect(other.json.error.message).toMatch(/^idempotency_key /);
    expect(await blobCount()).toBe(1);
  });

  it('a pipeline on the handle ingests every own post, with progress, audience and media; no retweet, reply to others or DM', async () => {
    const { pipeline_id, run_id, output } = await ingest(s, 'ada-x-2024');
    expect(output).toMatchObject({ fetched: g.publicPosts.size, created: g.publicPosts.size, updated: 0 });
    const run = await unwrap(s.client().GET(`${V1}/runs/{id}`, { params: { path: { id: run_id } } }));
    expect(run.progress).toEqual({ done: g.publicPosts.size, total: g.publicPosts.size });
    const posts = await allPosts(pipeline_id);
    expect(posts).toHaveLength(g.publicPosts.size);
    for (const p of posts) {
      const e = [...g.publicPosts.values()].find((x) => x.text === p.text);
      expect(e, p.text.slice(0, 80)).toBeDefined();
      expect(p.visibility).toBe('public');
      expect(p.media.map((m) => m.alt_text)).toEqual(e!.media.map((m) => m.alt_text));
    }
    expect(posts.some((p) => /^RT @|^@grace|private message/.test(p.text))).toBe(false);
    expect(posts.filter((p) => p.reply_to !== null).length).toBeGreaterThan(0);
  });

  it('a newer export of the handle updates metrics and adds posts, never duplicating', async () => {
    const newer = xArchive({ posts: 1560, partSize: 600, filler: 2800, seed: 2 });
    const r = await upload((await writeZip(newer.files))!, { handle: 'ada-x-2024' });
    expect(r.status).toBe(201);
    expect((await unwrap(s.client().GET(`${V1}/imports/{id}`, { params: { path: { id: first.id } } }))).status).toBe('superseded');
    const { pipeline_id, output } = await ingest(s, 'ada-x-2024');
    const known = [...newer.publicPosts.keys()].filter((id) => g.publicPosts.has(id)).length;
    expect(output).toMatchObject({ fetched: newer.publicPosts.size, created: newer.publicPosts.size - known, updated: known });
    expect(known).toBeGreaterThan(1250);
    const posts = await allPosts(pipeline_id);
    expect(posts).toHaveLength(new Set([...g.publicPosts.keys(), ...newer.publicPosts.keys()]).size);
    // Metrics and text as the newer export has them.
    const sample = posts.find((p) => newer.publicPosts.get(p.url!.split('/').pop()!))!;
    expect(sample.text).toBe(newer.publicPosts.get(sample.url!.split('/').pop()!)!.text);
    // The superseded export's bytes are gone.
    expect(await blobCount()).toBe(1);
  });
});

describe('privacy', () => {
  it('a Mastodon tar.gz never brings direct messages; followers-only posts come only on request and cannot be published by accident', async () => {
    const g = mastodonArchive({ posts: 160 });
    const tgz = await writeTarGz(g.files);
    const plain = await upload(tgz, { handle: 'ada-masto' }, 'application/gzip');
    expect(plain.status).toBe(201);
    expect(plain.json.summary).toMatchObject({ posts: g.publicPosts.size, skipped: { direct_message: 10, followers_only: g.nonPublicPosts.size } });
    const opted = await upload(tgz, { handle: 'ada-masto-all', include_non_public: 'true' }, 'application/gzip');
    expect(opted.json.summary.by_visibility.followers).toBe(g.nonPublicPosts.size);
    const { pipeline_id } = await ingest(s, 'ada-masto-all');
    const posts = await listAllPosts(s, pipeline_id);
    const followersOnly = posts.find((p) => p.visibility === 'followers')!;
    expect(followersOnly).toBeDefined();
    expect(posts.some((p) => g.publicPosts.has(p.url ?? ''))).toBe(false);
    const client = s.client();
    const { artifact_id, run_id } = await unwrap(
      client.POST(`${V1}/posts/{id}/draft`, { params: { path: { id: followersOnly.id } }, body: { idempotency_key: newIdempotencyKey() } }),
    );
    const { expectRunSucceeded } = await import('../support/runs.js');
    await expectRunSucceeded(s.running.deps, run_id);
    const art = await unwrap(client.GET(`${V1}/artifacts/{id}`, { params: { path: { id: artifact_id } } }));
    expect(art.source_visibility).toBe('followers');
    const refused = await client.POST(`${V1}/artifacts/{id}/publish`, {
      params: { path: { id: artifact_id } },
      body: { idempotency_key: newIdempotencyKey() },
    });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.message).toMatch(/followers-only posts.*confirm_non_public/);
    // Confirmed, the audience no longer stops it: what stops it now is that it has nowhere to go (no account that posts).
    const confirmed = await client.POST(`${V1}/artifacts/{id}/publish`, {
      params: { path: { id: artifact_id } },
      body: { idempotency_key: newIdempotencyKey(), confirm_non_public: true },
    });
    expect(confirmed.response.status).toBe(424);
    expect(confirmed.error?.error.code).toBe('credential_missing');
  });

  it('a LinkedIn export comes out as written, without its quoting artefacts', async () => {
    const g = linkedInArchive({ posts: 120 });
    const r = await upload((await writeZip(g.files))!, { handle: 'ada-linkedin' });
    expect(r.status).toBe(201);
    const { pipeline_id } = await ingest(s, 'ada-linkedin');
    const posts = await allPosts(pipeline_id);
    expect(new Set(posts.map((p) => p.text))).toEqual(new Set([...g.publicPosts.values()].map((e) => e.text)));
  });
});

describe('bad input leaves nothing behind', () => {
  it('refuses each kind of bad archive with 422 naming what is wrong', async () => {
    const before = await blobCount();
    const imports = await importCount();
    const cases: Array<[Buffer, Record<string, string>, RegExp]> = [
      [
        (await writeZip([{ name: 'photos/cat.jpg', data: Buffer.from('x') }]))!,
        { handle: 'bad' },
        /^body is not an export we can import: The ZIP holds no .*Found: photos\/cat\.jpg \(1 file\)/,
      ],
      [(await writeZip(xArchive({ posts: 40 }).files))!.subarray(0, 3000), { handle: 'bad' }, /corrupt or truncated/],
      [
        Buffer.from('hello, not an export'),
        { handle: 'bad' },
        /Understood: X \(data\/tweets\.js\), Mastodon \(outbox\.json\), LinkedIn \(Shares\.csv\), Bluesky \(.*\), WordPress \(.*\), Instagram \(.*\), Threads \(.*\), Medium \(.*\), Substack \(.*\), Misskey, Sharkey or Firefish \(.*\) or Pixelfed/,
      ],
      [
        (await writeZip([{ name: 'outbox.json', data: Buffer.concat([Buffer.from('{"orderedItems": ['), Buffer.alloc(11 * 1024 * 1024, 0x20)]) }]))!,
        { handle: 'bad' },
        /decompression bomb/,
      ],
      [(await writeZip(linkedInArchive({ posts: 5 }).files))!, { handle: 'bad', format: 'x' }, /^format is not an export|holds no data\/tweets\.js/],
    ];
    for (const [body, q, message] of cases) {
      const r = await upload(body, q);
      expect(r.status, JSON.stringify(r.json)).toBe(422);
      expect(r.json.error.code).toBe('validation_failed');
      expect(r.json.error.message).toMatch(message);
    }
    expect(await blobCount()).toBe(before);
    expect(await importCount()).toBe(imports);
  });

  it('an upload over IMPORT_MAX_BYTES is 413, and nothing is kept', async () => {
    const before = await blobCount();
    const r = await upload(Buffer.alloc(13 * 1024 * 1024, 0x41), { handle: 'big' }, 'application/octet-stream');
    expect(r.status).toBe(413);
    expect(r.json.error.message).toMatch(/IMPORT_MAX_BYTES/);
    expect(await blobCount()).toBe(before);
  });

  it('an upload without a Content-Type is 415 naming the types an export may have', async () => {
    const res = await fetch(`${s.url}${V1}/imports?handle=x&idempotency_key=${newIdempotencyKey()}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${s.token}` },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe(
      'The request has no Content-Type. Send the file with its Content-Type, one of: application/zip, application/gzip, application/x-tar, application/octet-stream, application/json, text/csv, application/vnd.ipld.car, application/xml, text/xml, text/javascript or application/javascript.',
    );
  });

  it('an upload with a Content-Type no export is sent as is 415 naming it and the accepted ones', async () => {
    const r = await upload(Buffer.from('hello'), { handle: 'x' }, 'text/plain');
    expect(r.status).toBe(415);
    expect(r.json.error.message).toMatch(
      /^Content-Type "text\/plain" is not accepted here\. Send the file with its Content-Type, one of: application\/zip, .* or application\/javascript\.$/,
    );
  });

  it('a bare tweets.js is taken as application/javascript (what a browser file picker sends) as well as text/javascript', async () => {
    const tweets = Buffer.from(
      'window.YTD.tweets.part0 = [ { "tweet" : { "id_str" : "1850000000000000001", "created_at" : "Sat Oct 26 09:00:00 +0000 2024", "full_text" : "Shipped v2.3 🦀" } } ]',
    );
    for (const type of ['application/javascript', 'text/javascript']) {
      const r = await upload(tweets, { handle: `js-${type.split('/')[0]}` }, type);
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      expect(r.json).toMatchObject({ format: 'x', summary: { posts: 1 } });
    }
  });

  it('another workspace cannot read an import', async () => {
    const other = await s.newWorkspace();
    const r = await upload(Buffer.from('x'), { handle: 'x' }, 'application/octet-stream');
    expect(r.status).toBe(422);
    const mine = await s.running.deps.db.selectFrom('Import').select('id').executeTakeFirst();
    const res = await s.client(other).GET(`${V1}/imports/{id}`, { params: { path: { id: mine!.id } } });
    expect(res.response.status).toBe(404);
  });
});
