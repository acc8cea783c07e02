// The whole flow on realistic data, as a partner drives it: an X archive ZIP and a Mastodon
// archive built from the platforms' documented formats (DMs, followers-only and protected posts,
// reposts, replies, self-threads, entities, t.co links, media, every Unicode plane) are uploaded
// and ingested; dozens of posts are drafted for every platform; the variants are read and one
// split edited; an image with EXIF GPS is attached and carried through re-drafts; a publish is
// scheduled across a DST change; threads are published to the Mastodon and Bluesky fakes.
// It asserts properties, never hard-coded outputs: each part within its platform's counted
// limit (counted independently here), the parts together are the text, no URL, mention,
// hashtag or grapheme cut, nothing non-public publishable without confirmation, media and alt
// text carried through and published with alt text, each part posted exactly once.
// REALISTIC_POSTS (default 3000) sizes the archives; REALISTIC_DRAFTS (default 24) the drafts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import twitter from 'twitter-text';
import { newIdempotencyKey, unwrap, type Schemas } from '../../clients/typescript/src/index.js';
import { mastodonArchive, writeZip, xArchive, type Generated } from '../support/exports.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { photoWithGps, upload } from '../support/images.js';
import { startBlueskyFake, startMastodonFake, type FakeStatus } from '../support/platforms.js';
import { connect, draftPost, getArtifact, ingest, publishRequest, rawRequest, V1 } from '../support/api.js';
import { expectRunSucceeded, waitForRun } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';

const POSTS = Number(process.env.REALISTIC_POSTS ?? 3000);
const DRAFTS = Number(process.env.REALISTIC_DRAFTS ?? 24);
const TARGETS = ['mastodon', 'bluesky', 'x', 'linkedin', 'threads'] as const;
type Artifact = Schemas['Artifact'];
type Variant = Schemas['PlatformVariant'];

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
/** Milliseconds per call, by label, for the report at the end. */
const timings = new Map<string, number[]>();

async function timed<T>(label: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    const list = timings.get(label) ?? [];
    list.push(performance.now() - t0);
    timings.set(label, list);
  }
}

/** The public Create activities of a generated Mastodon archive, as the API's statuses. */
function statusesOf(g: Generated, n: number): FakeStatus[] {
  const outbox = JSON.parse(g.files.find((f) => f.name === 'outbox.json')!.data.toString()) as { orderedItems: Array<{ type: string; object: any }> };
  const out: FakeStatus[] = [];
  for (const item of outbox.orderedItems) {
    if (item.type !== 'Create' || item.object.inReplyTo) continue;
    const o = item.object;
    const visibility = o.to.includes('https://www.w3.org/ns/activitystreams#Public')
      ? 'public'
      : o.cc.includes('https://www.w3.org/ns/activitystreams#Public')
        ? 'unlisted'
        : o.to.some((t: string) => t.endsWith('/followers'))
          ? 'private'
          : 'direct';
    out.push({
      id: String(5000 + out.length),
      created_at: o.published,
      url: o.url,
      content: o.content,
      favourites_count: out.length,
      reblogs_count: 1,
      replies_count: 0,
      visibility: visibility as FakeStatus['visibility'],
      media_attachments: o.attachment.map((a: any, i: number) => ({
        id: `${out.length}${i}`,
        type: 'image',
        url: `https://files.mastodon.example${a.url}`,
        description: a.name,
        meta: { original: { width: a.width, height: a.height } },
      })),
    });
    if (out.length >= n) break;
  }
  return out;
}

beforeAll(async () => {
  // Long statuses (a filler of ~700 bytes each), so that every platform needs a thread.
  mastodon = await startMastodonFake({ statuses: statusesOf(mastodonArchive({ posts: 60, seed: 7, filler: 700 }), 40) });
  // The long posts of an X archive (note-tweet.js), with their links, as Bluesky posts.
  const long = [...xArchive({ posts: 200, seed: 5 }).publicPosts.values()].filter((p) => p.text.length > 400).slice(0, 8);
  bluesky = await startBlueskyFake({
    posts: long.map((p, i) => ({
      rkey: `3kaa${i}`,
      text: `${p.text} @lin.bsky.social #release https://blog.example.org/notes/${i}?utm_source=bsky`,
      createdAt: p.publishedAt,
      likeCount: i,
      repostCount: 0,
      replyCount: 0,
      quoteCount: 0,
    })),
  });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake), ...bluesky.env, JOB_POLL_MS: '50', JOB_RETRY_BASE_MS: '300' } });
}, 120_000);

afterAll(async () => {
  if (process.env.REALISTIC_REPORT) {
    for (const [label, list] of timings) {
      const sorted = [...list].sort((a, b) => a - b);
      console.log(`${label}: n=${list.length} median=${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)}ms max=${sorted[sorted.length - 1]!.toFixed(1)}ms`);
    }
    const threads = state.artifacts.flatMap((a) => a.variants.filter((v) => v.is_thread).map((v) => v.platform));
    console.log(
      `variants: ${state.artifacts.length * TARGETS.length}, threads: ${TARGETS.map((t) => `${t} ${threads.filter((p) => p === t).length}`).join(', ')}`,
    );
    console.log(`rss=${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB heap=${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MiB`);
  }
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake]) await f?.close();
});

async function uploadArchive(bytes: Buffer, handle: string, includeNonPublic = false) {
  const qs = new URLSearchParams({ handle, idempotency_key: newIdempotencyKey(), ...(includeNonPublic ? { include_non_public: 'true' } : {}) });
  const { res, body } = await rawRequest(s, `${V1}/imports?${qs}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/zip' },
    body: new Uint8Array(bytes),
  });
  const json = body as unknown as Schemas['Import'];
  expect(res.status, JSON.stringify(json)).toBe(201);
  return json;
}

async function allPosts(pipelineId: string): Promise<Schemas['SourcePost'][]> {
  const out: Schemas['SourcePost'][] = [];
  let cursor: string | undefined;
  do {
    const page = await timed('GET /pipelines/{id}/posts (100)', () =>
      unwrap(s.client().GET(`${V1}/pipelines/{id}/posts`, { params: { path: { id: pipelineId }, query: { limit: 100, ...(cursor ? { cursor } : {}) } } })),
    );
    out.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

async function draft(postId: string, body: Omit<Schemas['DraftRequest'], 'idempotency_key'> = {}): Promise<Artifact> {
  const accepted = await timed('POST /posts/{id}/draft', () => unwrap(draftPost(s, postId, body)));
  await expectRunSucceeded(s.running.deps, accepted.run_id, { timeoutMs: 30_000 });
  return timed('GET /artifacts/{id}', () => getArtifact(s, accepted.artifact_id));
}

const variantOf = (a: Artifact, platform: Variant['platform']) => a.variants.find((v) => v.platform === platform)!;

// ---- Independent counters (the platforms' documented rules), not the service's own code ----

const graphemes = (t: string) => [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(t)].map((x) => x.segment);
const URL_RE = /https?:\/\/[^\s]+/gu;
const EMOJI = /\p{Extended_Pictographic}/u;

function counted(platform: Variant['platform'], text: string): number {
  switch (platform) {
    case 'x':
      return twitter.parseTweet(text).weightedLength;
    case 'bluesky':
      return graphemes(text).length;
    case 'linkedin':
      return text.length;
    case 'mastodon':
      // Code points, each URL 23, a remote mention as its local part.
      return [...text.replace(URL_RE, 'x'.repeat(23)).replace(/(@[\p{L}\p{N}_]+)@[\w.-]+\w/gu, '$1')].length;
    case 'threads':
      return graphemes(text).reduce((n, g) => n + (EMOJI.test(g) ? Buffer.byteLength(g) : [...g].length), 0);
  }
}

/** The tokens a cut must never go through: URLs, mentions, hashtags (X's own extractor). */
function tokens(text: string): string[] {
  return twitter.extractEntitiesWithIndices(text).map((e) => text.slice(e.indices[0], e.indices[1]));
}

const unnumbered = (parts: string[], numbered: boolean) => (numbered ? parts.map((p, i) => p.replace(new RegExp(`\\s*${i + 1}/${parts.length}$`), '')) : parts);
const squash = (t: string) => graphemes(t).filter((g) => !/^\s+$/u.test(g));

/** The properties every variant must have. */
function checkVariant(v: Variant, where: string) {
  const at = `${where} ${v.platform}`;
  if (v.problem) {
    expect(v.parts, at).toEqual([]);
    return;
  }
  expect(v.parts.length, at).toBeGreaterThan(0);
  expect(v.is_thread, at).toBe(v.parts.length > 1);
  for (const [i, p] of v.parts.entries()) {
    expect(p.length, `${at} part ${i + 1} counted by the service`).toBeLessThanOrEqual(v.limit);
    expect(counted(v.platform, p.text), `${at} part ${i + 1} counted independently: ${JSON.stringify(p.text)}`).toBeLessThanOrEqual(v.limit);
    if (v.platform === 'bluesky') expect(Buffer.byteLength(p.text), at).toBeLessThanOrEqual(3000);
    expect(p.text.trim(), at).not.toBe('');
  }
  const texts = unnumbered(
    v.parts.map((p) => p.text),
    v.numbered,
  );
  // The parts together are the text, grapheme for grapheme (an emoji sequence cut in two would not be).
  expect(squash(texts.join(' ')), `${at}: the parts together are the text`).toEqual(squash(v.text));
  // No URL, mention or hashtag of the text is cut: each is whole in one part.
  for (const tok of tokens(v.text))
    expect(
      texts.some((t) => t.includes(tok)),
      `${at}: ${tok} is whole in a part`,
    ).toBe(true);
}

// ---- The scenario ----

const x = xArchive({ posts: POSTS, seed: 11, partSize: Math.ceil(POSTS / 3) });
const m = mastodonArchive({ posts: POSTS, seed: 12 });
const state: {
  xPipeline?: string;
  mPipeline?: string;
  xPosts?: Schemas['SourcePost'][];
  mPosts?: Schemas['SourcePost'][];
  artifacts: Artifact[];
  live?: typeof mastodon.state.posted;
} = { artifacts: [] };

describe('a realistic archive, from upload to publishing', () => {
  it('imports and ingests the X archive ZIP and the Mastodon archive (with its non-public posts) with the right counts', async () => {
    const xImport = await timed('POST /imports (x zip)', async () => uploadArchive((await writeZip(x.files))!, 'real-x'));
    expect(xImport.summary.posts).toBe(x.publicPosts.size);
    const mImport = await timed('POST /imports (mastodon zip)', async () => uploadArchive((await writeZip(m.files))!, 'real-m', true));
    expect(mImport.summary.posts).toBe(m.publicPosts.size + m.nonPublicPosts.size);
    for (const [handle, key] of [
      ['real-x', 'x'],
      ['real-m', 'm'],
    ] as const) {
      const started = await timed('ingest (archive)', () => ingest(s, handle));
      state[`${key}Pipeline`] = started.pipeline_id;
      state[`${key}Posts`] = await allPosts(started.pipeline_id);
    }
    expect(state.xPosts!.length).toBe(x.publicPosts.size);
    expect(state.mPosts!.length).toBe(m.publicPosts.size + m.nonPublicPosts.size);
    // The text arrives as written: entities decoded, t.co links expanded, Unicode intact.
    const byExternal = new Map(state.xPosts!.map((p) => [p.url?.split('/').pop(), p]));
    for (const [id, want] of x.publicPosts) expect(byExternal.get(id)?.text, id).toBe(want.text);
    expect(state.mPosts!.filter((p) => p.visibility === 'followers')).toHaveLength(m.nonPublicPosts.size);
    const mExpected = new Map([...m.publicPosts.values(), ...m.nonPublicPosts.values()].map((p) => [p.externalId.split('/').pop(), p]));
    for (const p of state.mPosts!) {
      const want = mExpected.get(p.url!.split('/').pop())!;
      expect(p.text, p.url!).toBe(want.text);
      expect(p.visibility, p.url!).toBe(want.visibility);
      expect(
        p.media.map(({ type, alt_text, archive_path }) => ({ type, alt_text, archive_path })),
        p.url!,
      ).toEqual(want.media.map(({ type, alt_text, archive_path }) => ({ type, alt_text, archive_path })));
    }
    for (const p of state.xPosts!) {
      const want = x.publicPosts.get(p.url!.split('/').pop()!)!;
      expect(
        p.media.map(({ alt_text, url }) => ({ alt_text, url })),
        p.url!,
      ).toEqual(want.media.map(({ alt_text, url }) => ({ alt_text, url })));
    }
  }, 120_000);

  it('drafts dozens of posts for every platform; every variant keeps the text, within the limit, uncut', async () => {
    // The longest posts (threads everywhere), the ones with links and media, and some of every kind.
    const xs = [...state.xPosts!].sort((a, b) => b.text.length - a.text.length);
    const picks = [
      ...xs.slice(0, DRAFTS / 2),
      ...xs.filter((p) => /https?:\/\//.test(p.text) || p.media.length).slice(0, DRAFTS / 4),
      ...state.mPosts!.slice(0, DRAFTS / 4),
    ];
    for (const p of picks) {
      const a = await draft(p.id, { targets: [...TARGETS] });
      expect(a.state, a.id).toBe('review');
      expect(a.variants.map((v) => v.platform).sort()).toEqual([...TARGETS].sort());
      for (const v of a.variants) checkVariant(v, `${a.id} (post ${p.id})`);
      // The draft carries its source's media, in order, with their alt text.
      expect(
        a.media?.map((x) => [x.source_post_id, x.alt_text, x.url, x.archive_path]),
        a.id,
      ).toEqual(p.media.map((x) => [p.id, x.alt_text, x.url, x.archive_path]));
      state.artifacts.push(a);
    }
    // The built-in writer shortens; the sources' own long texts, sent as the agent's text, make threads everywhere.
    const long = [...xs.slice(0, 3), ...[...state.mPosts!].sort((a, b) => b.text.length - a.text.length).slice(0, 3)];
    for (const [i, p] of long.entries()) {
      const a = state.artifacts[i]!;
      for (const platform of TARGETS) {
        const v = await timed('PUT /artifacts/{id}/variants/{platform}', () =>
          unwrap(
            s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, {
              params: { path: { id: a.id, platform } },
              body: { text: `${p.text}\n\n${p.text}`, numbered: i % 2 === 0 },
            }),
          ),
        );
        checkVariant(v, `${a.id} (text of ${p.id})`);
      }
    }
  }, 120_000);

  it('a long Mastodon status drafted into a thread: edited split, media with alt text through re-drafts, scheduled across DST, published exactly once with alt text', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id } = await ingest(s, mastodon.handle);
    const posts = await allPosts(pipeline_id);
    // Only what the account posted publicly is a source: followers-only and direct statuses are not public.
    const fakeText = new Map(mastodon.state.statuses.map((st) => [st.url, st]));
    for (const p of posts) {
      const vis = fakeText.get(p.url!)!.visibility;
      expect(vis, `status ${p.url} ingested`).not.toBe('direct');
      if (vis === 'private') expect(p.visibility, `status ${p.url}`).toBe('followers');
    }
    const source = [...posts].filter((p) => p.visibility === 'public').sort((a, b) => b.text.length - a.text.length)[0]!;
    let a = await draft(source.id, { targets: ['mastodon', 'bluesky', 'x'] });
    for (const v of a.variants) checkVariant(v, a.id);

    // The agent's own split for Mastodon, numbered.
    const own = variantOf(a, 'mastodon').parts.map((p) => p.text);
    const edited = [...own.slice(0, -1), `${own[own.length - 1]} — 編集済み 👩🏽‍💻`];
    const put = await timed('PUT /artifacts/{id}/variants/{platform}', () =>
      unwrap(
        s
          .client()
          .PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'mastodon' } }, body: { parts: edited, numbered: true } }),
      ),
    );
    checkVariant(put, `${a.id} edited`);
    expect(
      unnumbered(
        put.parts.map((p) => p.text),
        true,
      ),
    ).toEqual(edited);

    // A photo with GPS in its EXIF, with alt text, after the status's own media (alt text set where missing).
    const up = await timed('POST /media', async () => upload(s, await photoWithGps(640, 480), { alt_text: 'Ada at the launch, 🎂 in hand — 東京' }));
    expect(up.status).toBe(201);
    const media = [{ id: up.json.id as string }];
    a = await timed('PUT /artifacts/{id}/media', () =>
      unwrap(s.client().PUT(`${V1}/artifacts/{id}/media`, { params: { path: { id: a.id } }, body: { media } })),
    );
    expect(a.media_issues).toEqual([]);
    const child = await draft(source.id, { parent_artifact_id: a.id, targets: ['mastodon', 'bluesky'] });
    expect(child.media).toEqual(a.media);
    const grandchild = await draft(source.id, { parent_artifact_id: child.id, targets: ['mastodon', 'bluesky'] });
    expect(grandchild.media).toEqual(a.media);
    expect(grandchild.media?.[0]?.alt_text).toBe('Ada at the launch, 🎂 in hand — 東京');

    // Scheduled across the spring-forward of Europe/Paris (28 March 2027): the offset is the zone's on that day.
    const before = await unwrap(publishRequest(s, grandchild.id, { local_time: '2027-03-27T09:30', time_zone: 'Europe/Paris' }));
    expect('run' in before && before.artifact.state).toBe('scheduled');
    const after = await unwrap(publishRequest(s, grandchild.id, { local_time: '2027-03-29T09:30', time_zone: 'Europe/Paris' }));
    const sched = await unwrap(s.client().GET(`${V1}/pipelines/{id}/schedule`, { params: { path: { id: pipeline_id } } }));
    const mine = sched.data.find((e) => e.id === grandchild.id)!;
    expect(mine.schedule?.at).toBe('2027-03-29T07:30:00.000Z');
    expect((before as Schemas['PublishAccepted']).artifact.schedule?.at).toBe('2027-03-27T08:30:00.000Z');
    expect('run' in after).toBe(true);
    const skipped = await publishRequest(s, grandchild.id, { local_time: '2027-03-28T02:30', time_zone: 'Europe/Paris' });
    expect(skipped.response.status).toBe(422);
    expect(skipped.error?.error.message).toContain('local_time');

    // Publish now (it replaces the schedule): each part once, a reply to the one before, the image with its alt text.
    const now = await unwrap(publishRequest(s, grandchild.id, {}));
    expect('run' in now).toBe(true);
    const run = await waitForRun(s.running.deps, (now as Schemas['PublishAccepted']).run.run_id, { timeoutMs: 30_000 });
    expect(run.status, `${run.errorCode}: ${run.errorMessage}`).toBe('succeeded');
    const published = await getArtifact(s, grandchild.id);
    expect(published.state).toBe('published');
    const parts = variantOf(published, 'mastodon').parts.map((p) => p.text);
    const live = mastodon.state.posted.filter((p) => parts.includes(p.text));
    expect(live.map((p) => p.text)).toEqual(parts);
    for (let i = 1; i < live.length; i++) expect(live[i]!.inReplyToId).toBe(live[i - 1]!.id);
    expect(new Set(mastodon.state.posted.map((p) => p.idempotencyKey)).size).toBe(mastodon.state.posted.length);
    state.live = live;
  }, 120_000);

  // The image goes with the thread's first part (4 per part), its alt text as the attachment's description.
  it('the published thread carries the image with its alt text, without its EXIF GPS', () => {
    const attached = state.live!.flatMap((p) => p.mediaIds ?? []).map((id) => mastodon.state.media.get(id)!);
    expect(attached.map((x) => x.description)).toEqual(['Ada at the launch, 🎂 in hand — 東京']);
    expect(attached[0]!.bytes.includes(Buffer.from('GPS'))).toBe(false);
  });

  it('a long Bluesky post drafted and published as a thread: each record once, each a reply to the one before under the root', async () => {
    await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    const { pipeline_id } = await ingest(s, bluesky.state.handle);
    const source = (await allPosts(pipeline_id)).sort((a, b) => b.text.length - a.text.length)[0]!;
    const a = await draft(source.id, { targets: ['bluesky'] });
    checkVariant(variantOf(a, 'bluesky'), a.id);
    // The whole post as the agent's text for Bluesky, split by the service.
    const variant = await unwrap(
      s.client().PUT(`${V1}/artifacts/{id}/variants/{platform}`, { params: { path: { id: a.id, platform: 'bluesky' } }, body: { text: source.text } }),
    );
    checkVariant(variant, `${a.id} (its source's text)`);
    expect(variant.is_thread).toBe(true);
    const accepted = await unwrap(publishRequest(s, a.id, {}));
    const run = await waitForRun(s.running.deps, (accepted as Schemas['PublishAccepted']).run.run_id, { timeoutMs: 30_000 });
    expect(run.status, `${run.errorCode}: ${run.errorMessage}`).toBe('succeeded');
    const published = await getArtifact(s, a.id);
    expect(published.published_parts).toHaveLength(variant.parts.length);
    const rkeys = published.published_parts.map((p) => p.url!.split('/').pop()!);
    const records = rkeys.map((k) => bluesky.state.records.get(k)!);
    expect(records.map((r) => r.text)).toEqual(variant.parts.map((p) => p.text));
    const uri = (k: string) => `at://${bluesky.state.did}/app.bsky.feed.post/${k}`;
    for (let i = 1; i < records.length; i++) {
      expect(records[i]!.reply?.root.uri).toBe(uri(rkeys[0]!));
      expect(records[i]!.reply?.parent.uri).toBe(uri(rkeys[i - 1]!));
    }
    const creates = bluesky.fake.requests
      .filter((r) => r.url === '/xrpc/com.atproto.repo.createRecord')
      .map((r) => (JSON.parse(r.body.toString()) as { rkey: string }).rkey);
    for (const k of rkeys) expect(creates.filter((c) => c === k)).toHaveLength(1);
  }, 60_000);

  it('non-public sources are never publishable without confirm_non_public, also through a re-draft and a brief', async () => {
    const priv = state.mPosts!.find((p) => p.visibility === 'followers')!;
    const pub = state.mPosts!.find((p) => p.visibility === 'public')!;
    const a = await draft(priv.id, { targets: ['mastodon'] });
    expect(a.source_visibility).toBe('followers');
    const brief = await draft(pub.id, { additional_post_ids: [priv.id] });
    expect(brief.source_visibility).toBe('followers');
    // A post of another pipeline is not a source of a brief.
    const foreign = await s.client().POST(`${V1}/posts/{id}/draft`, {
      params: { path: { id: state.xPosts![0]!.id } },
      body: { additional_post_ids: [priv.id], idempotency_key: newIdempotencyKey() },
    });
    expect(foreign.response.status).toBe(422);
    const child = await draft(priv.id, { parent_artifact_id: a.id });
    for (const art of [a, brief, child]) {
      const refused = await publishRequest(s, art.id, {});
      expect(refused.response.status, art.id).toBe(403);
      expect((await getArtifact(s, art.id)).state).toBe('review');
    }
  }, 60_000);

  it('importing the same export again (a new key) adds nothing and keeps every post once', async () => {
    await uploadArchive((await writeZip(x.files))!, 'real-x');
    await ingest(s, 'real-x');
    const again = await allPosts(state.xPipeline!);
    expect(again.length).toBe(x.publicPosts.size);
    expect(new Set(again.map((p) => p.url)).size).toBe(again.length);
  }, 120_000);

  it('inbox and diagnose answer for the big pipelines, quickly', async () => {
    for (const id of [state.xPipeline!, state.mPipeline!]) {
      const inbox = await timed('GET /pipelines/{id}/inbox', () => unwrap(s.client().GET(`${V1}/pipelines/{id}/inbox`, { params: { path: { id } } })));
      expect(inbox.data.length).toBeGreaterThan(0);
      const diagnose = await timed('GET /pipelines/{id}/diagnose', () => unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id } } })));
      expect(Array.isArray(diagnose.issues)).toBe(true);
    }
  }, 60_000);
});
