// Feeds as publishers serve them (issue 24), through the API on a real database: every item of a
// 2,000-item document on the first ingest and only the new ones after; legacy encodings declared
// only in the XML declaration; dates in other languages, and unreadable ones flagged on the post
// and in diagnose instead of passing the fetch time off as the date; JSON Feed; and an address
// that serves no feed refused as 422 on the handle, not as a dead credential.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unwrap } from '../../clients/typescript/src/index.js';
import { refusal } from '../support/errors.js';
import { encodeLegacy, jsonFeed, rssText } from '../support/feeds.js';
import { outboundEnvFor } from '../support/https-fake.js';
import { startFeedFake } from '../support/platforms.js';
import { connect, ingest, listAllPosts, V1 } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/server.js';

let s: TestServer;
let feed: Awaited<ReturnType<typeof startFeedFake>>;

beforeAll(async () => {
  feed = await startFeedFake();
  s = await startTestServer({ env: { ...outboundEnvFor(feed.fake), JOB_POLL_MS: '50' } });
});

afterAll(async () => {
  await s?.stop();
  await feed?.fake.close();
});

beforeEach(() => {
  feed.state.body = undefined;
  feed.state.contentType = undefined;
});

/** Serves these bytes at the feed's address; each test gets its own address (a query), so its own pipeline. */
function serve(body: Buffer | string, contentType: string | null, name: string): string {
  feed.state.body = Buffer.isBuffer(body) ? body : Buffer.from(body);
  feed.state.contentType = contentType;
  return `${feed.url}?t=${name}`;
}

const items = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return {
      guid: `ep-${i}`,
      title: `Episode ${i}`,
      description: `Notes ${i} — 日本語 🎙️`,
      pubDate: new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toUTCString(),
    };
  });

const pipelineOf = (id: string) => unwrap(s.client().GET(`${V1}/pipelines/{id}`, { params: { path: { id } } }));

describe('a 2,000-item feed', () => {
  it('is read whole on the first ingest; a later ingest adds only what is new', async () => {
    const url = serve(rssText({ title: 'Podcast', items: items(2000) }), 'application/rss+xml', 'big');
    const first = await ingest(s, url);
    expect(first.output).toMatchObject({ fetched: 2000, created: 2000, updated: 0 });
    expect((await pipelineOf(first.pipeline_id)).post_count).toBe(2000);

    serve(rssText({ title: 'Podcast', items: [...items(3, 2000), ...items(2000)] }), 'application/rss+xml', 'big');
    const second = await ingest(s, url);
    expect(second.pipeline_id).toBe(first.pipeline_id);
    expect(second.output).toMatchObject({ fetched: 2003, created: 3, updated: 2000 });
    expect((await pipelineOf(first.pipeline_id)).post_count).toBe(2003);
  });
});

describe('feeds in legacy encodings, declared only in the XML declaration and served without a charset', () => {
  for (const [label, whatwg, title, body] of [
    ['ISO-8859-1', 'windows-1252', 'Ação e coração', 'Pão de queijo à noite, naïve façade'],
    ['GB2312', 'gbk', '你好，世界', '中文博客：今天发布了新版本。'],
    ['Shift_JIS', 'shift_jis', '日本語のブログ', 'こんにちは、新しいバージョンです。'],
  ] as const) {
    it(label, async () => {
      const bytes = encodeLegacy(
        whatwg,
        rssText({ encoding: label, title, items: [{ guid: 'g1', title, description: body, pubDate: 'Seg, 24 Set 2018 19:42:40 -0300' }] }),
      );
      const url = serve(bytes, 'application/rss+xml', label);
      const { pipeline_id } = await ingest(s, url);
      const [post] = await listAllPosts(s, pipeline_id);
      expect(post).toMatchObject({ text: `${title}\n\n${body}`, published_at: '2018-09-24T22:42:40.000Z', unread_date: null });
    });
  }
});

describe('dates that cannot be read', () => {
  it('are flagged on the post (unread_date, published_at the first ingest) and by diagnose; a re-ingest keeps the date', async () => {
    const url = serve(
      rssText({
        title: 'Blog',
        items: [
          { guid: 'read', title: 'Lu', description: 'ok', pubDate: 'lun., 24 sept. 2018 19:42:40 +0200' },
          { guid: 'unread', title: 'Pas lu', description: 'x', pubDate: 'Xyz, 99 Foo 2018' },
        ],
      }),
      'application/rss+xml',
      'dates',
    );
    const before = Date.now();
    const { pipeline_id } = await ingest(s, url);
    const posts = await listAllPosts(s, pipeline_id);
    const unread = posts.find((p) => p.text.startsWith('Pas lu'))!;
    expect(posts.find((p) => p.text.startsWith('Lu'))).toMatchObject({ published_at: '2018-09-24T17:42:40.000Z', unread_date: null });
    expect(unread.unread_date).toBe('Xyz, 99 Foo 2018');
    expect(Date.parse(unread.published_at)).toBeGreaterThanOrEqual(before - 1000);
    const report = await unwrap(s.client().GET(`${V1}/pipelines/{id}/diagnose`, { params: { path: { id: pipeline_id } } }));
    expect(report.issues).toContainEqual(
      expect.objectContaining({ code: 'unread_dates', severity: 'info', message: expect.stringContaining('"Xyz, 99 Foo 2018"') }),
    );

    await ingest(s, url);
    const again = (await listAllPosts(s, pipeline_id)).find((p) => p.id === unread.id)!;
    expect(again).toMatchObject({ published_at: unread.published_at, unread_date: 'Xyz, 99 Foo 2018' });
  });
});

describe('JSON Feed', () => {
  it('connects and ingests a JSON Feed 1.1 with its attachments as media', async () => {
    const url = serve(JSON.stringify(jsonFeed(30)), 'application/feed+json', 'json');
    const account = await connect(s, { platform: 'rss', handle: url, auth_material: '' });
    expect(account.result).toBe('added');
    const { pipeline_id, output } = await ingest(s, url);
    expect(output).toMatchObject({ fetched: 30, created: 30 });
    const posts = await listAllPosts(s, pipeline_id);
    const ep0 = posts.find((p) => p.url === 'https://pod.example.org/episodes/0')!;
    expect(ep0).toMatchObject({ text: 'Episode 0: engines 🚂\n\nNotes for 0 & more — 日本語', published_at: '2024-01-01T00:00:00.000Z' });
    expect(ep0.media.map((m) => [m.type, m.url, m.alt_text])).toEqual([
      ['audio', 'https://cdn.example.org/ep0.mp3', 'Episode 0 audio'],
      ['image', 'https://cdn.example.org/ep0.jpg', 'Cover: an engine at dawn'],
    ]);
  });
});

describe('an address that serves no feed', () => {
  it('is 422 on the handle saying what it is and which formats are read, never 424 credential_dead', async () => {
    for (const [body, type, what] of [
      ['<!doctype html><html><head><title>Blog</title></head><body>hi</body></html>', 'text/html; charset=utf-8', /is an HTML page/],
      ['{"status":"ok"}', 'application/json', /JSON without a JSON Feed "version"/],
    ] as const) {
      const url = serve(body, type, 'nofeed');
      const err = await refusal(connect(s, { platform: 'rss', handle: url, auth_material: '' }));
      expect(err).toMatchObject({ status: 422, code: 'validation_failed' });
      expect(err.suggestedAction).not.toBe('connect_account');
      expect(err.message).toMatch(/^body\.handle: /);
      expect(err.message).toMatch(what);
      expect(err.message).toMatch(/JSON Feed 1\.0\/1\.1/);
    }
  });
});
