// The exports of issue 34 through the HTTP API, on both databases: a Threads export with Meta's
// escapes mixed with raw characters, a Medium ZIP with drafts, a Substack ZIP with free and paid
// posts, a Misskey notes export with a content warning, a renote and a reply, and a Pixelfed
// statuses export are uploaded as downloaded, counted before the answer (what is left out, by
// reason), then ingested with progress; the stored posts are what the authors wrote, and nothing
// non-public comes in unless asked.
import { describe, expect, it } from 'vitest';
import { mediumExport, misskeyExport, pixelfedExport, substackExport, threadsExport } from '../support/exports-more.js';
import { writeZip, type ExpectedPost } from '../support/exports.js';
import { expectListed, importServer } from '../support/imports-http.js';

const { server, post, ingested } = importServer();
const expectPosts = expectListed;

describe('a Threads export', () => {
  it("reads every post as typed, Meta's escapes and raw characters mixed in one string", async () => {
    const g = threadsExport({ posts: 30 });
    const r = await post((await writeZip(g.files))!, { handle: 'ada-threads' }, 'application/zip');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'threads', container: 'zip', summary: { posts: g.publicPosts.size, skipped: g.skipped } });
    const posts = await ingested('ada-threads', g.publicPosts.size);
    expectPosts(posts, g.publicPosts, (p) => p.text);
    expect(posts.some((p) => p.text.startsWith('Привет из Москвы!'))).toBe(true);
    expect(posts.some((p) => p.text.includes('😍🔥👩🏽‍💻🇧🇷'))).toBe(true);
    expect(posts.some((p) => /Ã|Ð/.test(p.text))).toBe(false);
  });
});

describe('a Medium export ZIP', () => {
  it('imports the stories with their address; drafts are left out and counted', async () => {
    const g = mediumExport({ posts: 20 });
    const r = await post((await writeZip(g.files))!, { handle: 'ada-medium' }, 'application/zip');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'medium', summary: { posts: 15, skipped: { draft: 5 } } });
    const posts = await ingested('ada-medium', 15);
    expectPosts(posts, g.publicPosts, (p) => p.url!);
  });
});

describe('a Substack export ZIP', () => {
  it('imports free posts; paid-only posts only on request, as followers; unpublished never', async () => {
    const g = substackExport({ posts: 24 });
    const zip = (await writeZip(g.files))!;
    const r = await post(zip, { handle: 'ada-substack' }, 'application/zip');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'substack', summary: { posts: g.publicPosts.size, skipped: { followers_only: 8, draft: 4 } } });
    const byText = (m: Map<string, ExpectedPost>) => new Map([...m.values()].map((e) => [e.text, e]));
    expectPosts(await ingested('ada-substack', g.publicPosts.size), byText(g.publicPosts), (p) => p.text);
    const all = await post(zip, { handle: 'ada-substack-all', include_non_public: 'true' }, 'application/zip');
    expect(all.json.summary).toMatchObject({ posts: 20, by_visibility: { public: 12, followers: 8 }, skipped: { followers_only: 0, draft: 4 } });
    expectPosts(await ingested('ada-substack-all', 20), byText(new Map([...g.publicPosts, ...g.nonPublicPosts])), (p) => p.text);
  });
});

describe('a Misskey notes export', () => {
  it('keeps the content warning and the own thread; the renote, the reply to someone else and the direct note are left out', async () => {
    const g = misskeyExport({ notes: 40 });
    const r = await post(g.json, { handle: 'ada-misskey' }, 'application/json');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'misskey', container: 'file', summary: { posts: g.publicPosts.size, skipped: g.skipped } });
    expect(r.json.summary.skipped).toMatchObject({ repost: 4, reply: 4, direct_message: 4, followers_only: 4, empty: 4 });
    const posts = await ingested('ada-misskey', g.publicPosts.size);
    const byText = new Map([...g.publicPosts.values()].map((e) => [e.text, e]));
    expectPosts(posts, byText, (p) => p.text);
    const warned = posts.filter((p) => p.content_warning);
    expect(warned.map((p) => p.content_warning).sort()).toEqual(['spoilers for 1', 'spoilers for 11', 'spoilers for 21', 'spoilers for 31']);
    const replies = posts.filter((p) => p.reply_to);
    expect(replies.length).toBe(r.json.summary.self_replies);
    expect(replies.length).toBeGreaterThan(0);
    for (const p of replies) expect(p.reply_to).toMatch(/^misskey:/);
  });
});

describe('a Pixelfed statuses export', () => {
  it('imports the photos with alt text; shares, comments on others, drafts, archived and direct statuses left out', async () => {
    const g = pixelfedExport({ statuses: 36 });
    const r = await post(g.json, { handle: 'ada-pixelfed' }, 'application/octet-stream');
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json).toMatchObject({ format: 'pixelfed', summary: { posts: g.publicPosts.size, skipped: g.skipped } });
    const posts = await ingested('ada-pixelfed', g.publicPosts.size);
    expectPosts(posts, g.publicPosts, (p) => p.url!);
    expect(posts.some((p) => p.media.some((m) => m.alt_text?.startsWith('Alt of photo')))).toBe(true);
  });
});

describe('refusals', () => {
  it('an unknown upload lists the new formats too; nothing is kept', async () => {
    const before = (await server().running.deps.db.selectFrom('Import').select('id').execute()).length;
    const unknown = await post(Buffer.from('[{"hello": "world"}]'), { handle: 'bad' }, 'application/json');
    expect(unknown.status).toBe(422);
    expect(unknown.json.error.message).toMatch(/^body is not an export we can import: .*Threads .*Medium .*Substack .*Misskey.*Pixelfed/);
    const medium = (await writeZip(mediumExport({ posts: 3 }).files))!;
    const wrong = await post(medium, { handle: 'bad', format: 'substack' }, 'application/zip');
    expect(wrong.status).toBe(422);
    expect(wrong.json.error.message).toMatch(/holds no posts\.csv \(Substack\)/);
    expect((await server().running.deps.db.selectFrom('Import').select('id').execute()).length).toBe(before);
  });
});
