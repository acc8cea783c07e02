// Ingest through each adapter against its local fake (or a sample export): posts stored with
// their metrics, re-ingest updating instead of duplicating, decodes and patterns stored, the
// spec's events emitted, and credential problems failing the run with operator.error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundEnvFor } from '../support/https-fake.js';
import { mastodonStatus, rssDocument, startBlueskyFake, startFeedFake, startMastodonFake } from '../support/platforms.js';
import { archiveFixture, connect, failedIngest, ingest, ingestArchive, listAllPosts, recordedEvents, startPipeline, V1 } from '../support/api.js';
import { waitForRun } from '../support/runs.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { findRow, findRows } from '../support/rows.js';

let s: TestServer;
let mastodon: Awaited<ReturnType<typeof startMastodonFake>>;
let bluesky: Awaited<ReturnType<typeof startBlueskyFake>>;
let feed: Awaited<ReturnType<typeof startFeedFake>>;
/** A second instance whose token gets revoked. */
let revoking: Awaited<ReturnType<typeof startMastodonFake>>;

beforeAll(async () => {
  mastodon = await startMastodonFake({
    statuses: [
      ...Array.from({ length: 45 }, (_, i) => mastodonStatus(i + 1)),
      mastodonStatus(46, { content: '<p>Boosted</p>', reblog: { id: '1' } }),
      mastodonStatus(47, {
        content: '<p>Why do we ship on Fridays?<br>We do not.</p><p><a href="https://mastodon.example/tags/ops">#<span>ops</span></a></p>',
        favourites_count: 999,
      }),
    ],
  });
  bluesky = await startBlueskyFake({
    posts: [
      {
        rkey: '3kaaa',
        text: 'Three ways to cut CI time in half:\n- cache\n- split\n- skip',
        createdAt: '2026-10-02T10:00:00.000Z',
        likeCount: 40,
        repostCount: 9,
        replyCount: 4,
        quoteCount: 2,
      },
      {
        rkey: '3kbbb',
        text: 'Somebody else wrote this',
        createdAt: '2026-10-03T10:00:00.000Z',
        likeCount: 1,
        repostCount: 0,
        replyCount: 0,
        quoteCount: 0,
        repost: true,
      },
      {
        rkey: '3kccc',
        text: 'Reading list for the weekend',
        createdAt: '2026-10-04T10:00:00.000Z',
        likeCount: 3,
        repostCount: 0,
        replyCount: 1,
        quoteCount: 0,
      },
    ],
  });
  feed = await startFeedFake({
    xml: rssDocument([
      { guid: 'p1', title: 'Release 2.3', description: '<p>The importer is <b>4x</b> faster.</p>', pubDate: 'Sun, 01 Nov 2026 10:00:00 GMT', comments: 7 },
      { guid: 'p2', title: 'Why streaming wins', description: '<p>Memory first.</p>', pubDate: 'Mon, 02 Nov 2026 10:00:00 GMT' },
    ]),
  });
  revoking = await startMastodonFake({ username: 'lin', token: 'lin-token-0123456789', statuses: [mastodonStatus(1)] });
  s = await startTestServer({ env: { ...outboundEnvFor(mastodon.fake, bluesky.fake, feed.fake, revoking.fake), ...bluesky.env, JOB_RETRY_BASE_MS: '10' } });
});

afterAll(async () => {
  await s?.stop();
  for (const f of [mastodon?.fake, bluesky?.fake, feed?.fake, revoking?.fake]) await f?.close();
});

describe('archive', () => {
  it('ingests an X export: posts with metrics, decodes, patterns and the events, in order', async () => {
    const { pipeline_id, run_id, output } = await ingestArchive(s, 'x-tweets.js', 'ada-x-2024');
    expect(output).toMatchObject({ fetched: 5, created: 5, updated: 0, decoded: 5 });
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts).toHaveLength(5);
    const shipped = posts.find((p) => p.text.startsWith('Shipped importer v2.3'))!;
    expect(shipped.platform).toBe('archive');
    expect(shipped.metrics).toEqual({ likes: 412, reposts: 87, replies: 0, quotes: 0 });
    expect(shipped.url).toBe('https://x.com/i/web/status/1850000000000000001');
    // The t.co link was replaced by the real address, and &amp; decoded.
    expect(shipped.text).toContain('https://github.com/ada/importer/releases/tag/v2.3.0');
    expect(shipped.text).toContain('4x faster on large CSVs & half the memory');

    const db = s.running.deps.db;
    const decode = await findRow(db, 'Decode', { postId: shipped.id });
    expect(decode.hook).toBe('Shipped importer v2.3 today: 4x faster on large CSVs & half the memory. Changelog below.');
    expect(decode.format).toBe('announcement');
    expect(JSON.parse(decode.hashtags)).toEqual(['rustlang']);
    expect(JSON.parse(decode.links)).toEqual(['https://github.com/ada/importer/releases/tag/v2.3.0']);

    const patterns = await findRows(db, 'Pattern', { pipelineId: pipeline_id });
    const keys = patterns.map((p) => `${p.kind}:${p.key}`);
    // The three best posts: two numbered lists opening with a number, all three tagged #rustlang.
    expect(keys).toEqual(expect.arrayContaining(['hashtag:rustlang', 'format:list', 'hook:number']));
    expect(patterns.find((p) => p.key === 'rustlang')).toMatchObject({ occurrences: 3, description: '#rustlang appears in 3 of the 3 best-performing posts' });

    const events = (await recordedEvents(s)).filter(
      (e) => e.data.operator_id === pipeline_id || posts.some((p) => p.id === e.data.post_id) || patterns.some((p) => p.id === e.data.pattern_id),
    );
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'post.ready')).toHaveLength(5);
    expect(types.filter((t) => t === 'decode.ready')).toHaveLength(5);
    expect(types.filter((t) => t === 'pattern.detected')).toHaveLength(patterns.length);
    expect(types[types.length - 1]).toBe('ingest.completed');
    expect(events[events.length - 1].data).toEqual({ operator_id: pipeline_id, run_id });
    const postReady = events.find((e) => e.type === 'post.ready' && e.data.post_id === shipped.id);
    expect(postReady?.data).toEqual({ post_id: shipped.id, operator_id: pipeline_id });
    expect(events.find((e) => e.type === 'decode.ready' && e.data.post_id === shipped.id)?.data).toEqual({ post_id: shipped.id, decode_id: decode.id });
  });

  it('re-ingest updates metrics and never duplicates a post (a newer export, same pipeline resumed)', async () => {
    const name = 'ada-x-reingest';
    const first = await ingestArchive(s, 'x-tweets.js', name);
    const newer = archiveFixture('x-tweets.js').replace('"favorite_count" : "412"', '"favorite_count" : "500"');
    await connect(s, { platform: 'archive', handle: name, auth_material: newer });
    const before = (await recordedEvents(s, 'post.ready')).length;
    const second = await ingest(s, name);
    expect(second.pipeline_id).toBe(first.pipeline_id);
    expect(second.resumed).toBe(true);
    expect(second.output).toMatchObject({ fetched: 5, created: 0, updated: 5, decoded: 0 });
    const posts = await listAllPosts(s, first.pipeline_id);
    expect(posts).toHaveLength(5);
    expect(posts.find((p) => p.text.startsWith('Shipped'))!.metrics.likes).toBe(500);
    expect((await recordedEvents(s, 'post.ready')).length).toBe(before);
  });

  it('ingests LinkedIn and Mastodon exports', async () => {
    const li = await ingestArchive(s, 'linkedin-Shares.csv', 'ada-linkedin', 'linkedin');
    const liPosts = await listAllPosts(s, li.pipeline_id);
    expect(liPosts).toHaveLength(4);
    expect(liPosts[0].text).toMatch(/^We just released version 2\.3/);
    expect(liPosts[0].published_at).toBe('2024-10-28T14:05:11.000Z');

    const md = await ingestArchive(s, 'mastodon-outbox.json', 'ada-mastodon');
    const mdPosts = await listAllPosts(s, md.pipeline_id);
    expect(mdPosts.map((p) => p.url)).toEqual([
      'https://mastodon.example/@ada/113400000000000001',
      'https://mastodon.example/@ada/113300000000000002',
      'https://mastodon.example/@ada/113000000000000005',
    ]);
    expect(mdPosts[0].metrics).toEqual({ likes: 120, reposts: 34, replies: 0, quotes: 0 });
    expect(mdPosts[2].text).toContain('- collect the ugly ones\n- snapshot the output');
  });
});

describe('mastodon', () => {
  it('reads the account statuses page by page with favourites, reblogs and replies; boosts left out', async () => {
    await connect(s, { platform: 'mastodon', handle: mastodon.handle, auth_material: mastodon.state.token });
    const { pipeline_id, output } = await ingest(s, mastodon.handle);
    expect(output).toMatchObject({ fetched: 46, created: 46 });
    const pages = mastodon.fake.requests.filter((r) => r.url.startsWith('/api/v1/accounts/109/statuses'));
    expect(pages).toHaveLength(2);
    expect(pages[1].url).toContain('max_id=');
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts.some((p) => p.text === 'Boosted')).toBe(false);
    const friday = posts.find((p) => p.text.startsWith('Why do we ship'))!;
    expect(friday.text).toBe('Why do we ship on Fridays?\nWe do not.\n\n#ops');
    expect(friday.metrics).toEqual({ likes: 999, reposts: 47, replies: 47 % 3, quotes: 0 });
    const decode = await findRow(s.running.deps.db, 'Decode', { postId: friday.id });
    expect(decode.format).toBe('question');
  });

  it('fails the run with credential_missing when no account is connected (the pipeline still exists)', async () => {
    const handle = `@grace@${mastodon.fake.host}`;
    const { pipeline_id, run } = await failedIngest(s, handle);
    expect(run.errorCode).toBe('credential_missing');
    const [evt] = (await recordedEvents(s, 'operator.error')).filter((e) => e.data.operator_id === pipeline_id);
    expect(evt.data.error).toMatchObject({ code: 'credential_missing' });
    const p = await s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id: pipeline_id } } });
    expect(p.data?.last_run?.error?.code).toBe('credential_missing');
  });

  it('marks the account dead when the platform refuses its token, and later runs fail without calling it', async () => {
    // The account is connected, then its token is revoked upstream.
    const other = revoking;
    await connect(s, { platform: 'mastodon', handle: other.handle, auth_material: other.state.token });
    other.state.revoked = true;
    const { pipeline_id, run } = await failedIngest(s, other.handle);
    expect(run.errorCode).toBe('credential_dead');
    const account = await findRow(s.running.deps.db, 'Account', { handle: other.handle });
    expect(account.status).toBe('dead');
    expect(account.lastProbeError).toMatch(/401/);
    const [evt] = (await recordedEvents(s, 'operator.error')).filter((e) => e.data.operator_id === pipeline_id);
    expect(evt.data).toMatchObject({ operator_id: pipeline_id, error: { code: 'credential_dead' } });
    const calls = other.fake.requests.length;
    const again = await failedIngest(s, other.handle, 'another intent');
    expect(again.run.errorCode).toBe('credential_dead');
    expect(other.fake.requests.length).toBe(calls);
  });

  it('does not use an account of another workspace', async () => {
    const otherToken = await s.newWorkspace();
    const started = await startPipeline(s, mastodon.handle, 'theirs', otherToken);
    const run = await waitForRun(s.running.deps, started.run_id);
    expect(run.status).toBe('failed');
    expect(run.errorCode).toBe('credential_missing');
  });
});

describe('bluesky and rss', () => {
  it('reads a Bluesky author feed with like, repost, reply and quote counts; reposts left out', async () => {
    await connect(s, { platform: 'bluesky', handle: bluesky.state.handle, auth_material: bluesky.state.appPassword });
    const { pipeline_id } = await ingest(s, bluesky.state.handle);
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts.map((p) => p.text)).toEqual(['Reading list for the weekend', 'Three ways to cut CI time in half:\n- cache\n- split\n- skip']);
    expect(posts[1].metrics).toEqual({ likes: 40, reposts: 9, replies: 4, quotes: 2 });
    expect(posts[1].url).toBe('https://bsky.app/profile/ada.bsky.social/post/3kaaa');
    const feedCall = bluesky.fake.requests.find((r) => r.url.startsWith('/xrpc/app.bsky.feed.getAuthorFeed'));
    expect(feedCall?.headers.authorization).toBe('Bearer jwt-access-ada');
  });

  it('reads an RSS feed without an account; the comment count becomes replies', async () => {
    const { pipeline_id } = await ingest(s, feed.url);
    const posts = await listAllPosts(s, pipeline_id);
    expect(posts).toHaveLength(2);
    const release = posts.find((p) => p.text.startsWith('Release 2.3'))!;
    expect(release).toMatchObject({ platform: 'rss', url: 'https://blog.example.com/p1', text: 'Release 2.3\n\nThe importer is 4x faster.' });
    expect(release.metrics).toEqual({ likes: 0, reposts: 0, replies: 7, quotes: 0 });
  });
});
