// The exports of issue 24 through the HTTP API, on both databases: a Bluesky repository CAR, a
// WordPress WXR and an Instagram export ZIP are uploaded as downloaded, counted before the
// answer (what is left out, by reason), then ingested with progress; the stored posts are what
// the authors wrote, with their threads, links, media and audience; nothing non-public by default.
import { describe, expect, it } from 'vitest';
import { blueskyRepo, instagramExport, META_SCRIPTS, wordpressExport, wxrBytes } from '../support/exports-formats.js';
import { writeZip } from '../support/exports.js';
import { importServer, listedMedia } from '../support/imports-http.js';

const { server, post, ingested } = importServer();
const media = listedMedia;

describe('a Bluesky repository export (.car)', () => {
  it('imports the posts and threads with full links and images by blob CID; reposts, likes and replies to others left out', async () => {
    const g = await blueskyRepo({ posts: 300, order: 'records-first' });
    const r = await post((await g.write())!, { handle: 'ada-bsky' }, 'application/vnd.ipld.car');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'bluesky', container: 'file', include_non_public: false });
    expect(r.json.summary).toMatchObject({ posts: g.publicPosts.size, skipped: g.skipped });
    const posts = await ingested('ada-bsky', g.publicPosts.size);
    expect(posts).toHaveLength(g.publicPosts.size);
    const byUrl = new Map([...g.publicPosts.values()].map((e) => [`https://bsky.app/profile/${g.did}/post/${e.externalId.split('/').pop()}`, e]));
    for (const p of posts) {
      const e = byUrl.get(p.url!);
      expect(e, p.url!).toBeDefined();
      expect(p.text).toBe(e!.text);
      expect(p.reply_to).toBe(e!.replyTo);
      expect(p.visibility).toBe('public');
      expect(p.media).toEqual(e!.media.map(media));
    }
    expect(posts.filter((p) => p.reply_to).length).toBe(r.json.summary.self_replies);
    expect(posts.some((p) => p.media.some((m) => m.alt_text?.startsWith('A chart of week')))).toBe(true);
  });
});

describe('a WordPress export (WXR)', () => {
  it('imports published posts only, with links and tags; drafts, private, trashed posts and pages never', async () => {
    const g = wordpressExport({ posts: 120, paragraphs: 1 });
    const r = await post(wxrBytes(g), { handle: 'ada-blog' }, 'application/xml');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'wordpress', summary: { posts: g.publicPosts.size, skipped: g.skipped } });
    expect(r.json.summary.skipped).toMatchObject({ draft: 18, private: 12, trashed: 6, not_a_post: 18 });
    // Asking for non-public posts does not bring private WordPress posts: nothing there is for followers.
    const all = await post(wxrBytes(g), { handle: 'ada-blog-all', include_non_public: 'true' }, 'text/xml');
    expect(all.json.summary).toMatchObject({ posts: g.publicPosts.size, skipped: { private: 12 } });
    const posts = await ingested('ada-blog', g.publicPosts.size);
    const byUrl = new Map([...g.publicPosts.values()].map((e) => [e.text, e]));
    for (const p of posts) {
      const e = byUrl.get(p.text);
      expect(e, p.text.slice(0, 80)).toBeDefined();
      expect(p.published_at).toBe(e!.publishedAt);
      expect(p.metrics.replies).toBe(e!.likes);
    }
    expect(posts.some((p) => p.text.includes('the notes (https://example.com/notes/'))).toBe(true);
    expect(posts.some((p) => /hunter2|Great post/.test(p.text))).toBe(false);
  });
});

describe('an Instagram export ZIP', () => {
  it("reads captions in every script from Meta's escaped UTF-8, with media and dates; a private account's posts only on request", async () => {
    const g = instagramExport({ posts: 24 });
    const r = await post((await writeZip(g.files))!, { handle: 'ada-insta' }, 'application/zip');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'instagram', container: 'zip', summary: { posts: 24 } });
    const posts = await ingested('ada-insta', 24);
    for (const p of posts) {
      const e = g.publicPosts.get(p.text);
      expect(e, p.text).toBeDefined();
      expect(p.published_at).toBe(e!.publishedAt);
      expect(p.media).toEqual(e!.media.map(media));
    }
    for (const script of META_SCRIPTS) expect(posts.some((p) => p.text.startsWith(script))).toBe(true);

    const priv = instagramExport({ posts: 6, privateAccount: true });
    const zip = (await writeZip(priv.files))!;
    const refused = await post(zip, { handle: 'ada-insta-private' }, 'application/zip');
    expect(refused.status).toBe(422);
    expect(refused.json.error.message).toMatch(/left out: 6 followers only/);
    const opted = await post(zip, { handle: 'ada-insta-private', include_non_public: 'true' }, 'application/zip');
    expect(opted.json.summary.by_visibility).toMatchObject({ public: 0, followers: 6 });
    const kept = await ingested('ada-insta-private', 6);
    expect(new Set(kept.map((p) => p.visibility))).toEqual(new Set(['followers']));
  });
});

describe('refusals', () => {
  it('an unknown upload lists every format understood; a truncated CAR is unreadable; nothing is kept', async () => {
    const before = (await server().running.deps.db.selectFrom('Import').select('id').execute()).length;
    const unknown = await post(Buffer.from('<html><body>not an export</body></html>'), { handle: 'bad' }, 'text/xml');
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.message).toMatch(/^body is not an export we can import: .*X .*Mastodon .*LinkedIn .*Bluesky .*WordPress .*Instagram/);
    const car = (await (await blueskyRepo({ posts: 40 })).write())!;
    const cut = await post(car.subarray(0, car.length - 64), { handle: 'bad' }, 'application/vnd.ipld.car');
    expect(cut.status).toBe(422);
    expect(cut.json.error.message).toMatch(/not a readable CAR file/);
    const wrong = await post(car, { handle: 'bad', format: 'wordpress' }, 'application/vnd.ipld.car');
    expect(wrong.status).toBe(422);
    expect(wrong.json.error.message).toMatch(/^format /);
    expect((await server().running.deps.db.selectFrom('Import').select('id').execute()).length).toBe(before);
  });
});
