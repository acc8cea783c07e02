// The exports added by issue 24, read as their authors wrote them: a Bluesky repository CAR (in
// either block order), a WordPress WXR and an Instagram export, each built from the format's
// published definition; every post must come out exactly as expected and everything else be
// counted out for the right reason.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveError, bufferSource, scanExport } from '../../server/adapters/archive/index.js';
import { expectSame, readAll } from '../support/archive-read.js';
import { expandFacets } from '../../server/adapters/archive/bluesky.js';
import { unmojibake } from '../../server/adapters/archive/instagram.js';
import { hashtag } from '../../server/adapters/archive/wordpress.js';
import { htmlToText } from '../../server/adapters/text.js';
import { blueskyRepo, instagramExport, META_SCRIPTS, metaJson, wordpressExport, wxrBytes } from '../support/exports-formats.js';
import { writeZip } from '../support/exports.js';

const refused = async (bytes: Buffer, format?: string) => {
  const err = await scanExport(bufferSource(bytes), { includeNonPublic: false, format }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ArchiveError);
  return err as ArchiveError;
};

describe('Bluesky repository CAR', () => {
  it('imports the posts and self-threads whatever the block order; reposts, likes, follows and replies to others counted out', async () => {
    for (const order of ['tree-first', 'records-first'] as const) {
      const g = await blueskyRepo({ posts: 400, order });
      const { scan, posts } = await readAll((await g.write())!);
      expectSame(posts, g.publicPosts);
      expect(scan.summary).toMatchObject({ format: 'bluesky', container: 'file', posts: g.publicPosts.size, skipped: g.skipped });
      expect(scan.summary.skipped).toMatchObject({ repost: 20, like: 20, reply: 40 });
      expect(scan.summary.self_replies).toBe([...g.publicPosts.values()].filter((p) => p.replyTo).length);
      expect(scan.summary.self_replies).toBeGreaterThan(0);
      expect(scan.summary.media).toBe([...g.publicPosts.values()].reduce((n, p) => n + p.media.length, 0));
      for (const p of posts) {
        expect(p.externalId).toMatch(/^at:\/\/did:plc:ewvi7nxzyoun6zhxrhs64oiz\/app\.bsky\.feed\.post\/[2-7a-z]{13}$/);
        expect(p.url).toBe(`https://bsky.app/profile/${g.did}/post/${p.externalId.split('/').pop()}`);
        if (p.replyTo) expect(p.replyTo.startsWith(`at://${g.did}/`)).toBe(true);
      }
      // The link facets after multibyte text came back as the whole address.
      expect(posts.filter((p) => p.text.includes('a-very-long-path-that-gets-shortened?ref=bsky&q=caf%C3%A9 and #testing')).length).toBe(40);
      expect(posts.some((p) => p.text.includes('...'))).toBe(false);
    }
  });

  it('reads a gzip of the CAR and a CAR inside a ZIP; a format other than the file is refused', async () => {
    const g = await blueskyRepo({ posts: 60 });
    const car = (await g.write())!;
    expect((await readAll(gzipSync(car))).posts.length).toBe(g.publicPosts.size);
    const zipped = await readAll((await writeZip([{ name: 'repo.car', data: car }]))!);
    expect(zipped.scan.summary.files_used).toEqual(['repo.car']);
    expect(zipped.posts.length).toBe(g.publicPosts.size);
    expect((await refused(car, 'wordpress')).field).toBe('format');
  });

  it('a truncated CAR (inside a block or between blocks), or one with a block past the size a repository allows, is unreadable (422)', async () => {
    const g = await blueskyRepo({ posts: 60 });
    const car = (await g.write())!;
    expect((await refused(car.subarray(0, car.length - 100))).message).toMatch(/not a readable CAR file/);
    // Cut between blocks: the last records (tree first) or the tree (records first) are missing.
    expect((await refused((await g.write(undefined, 3))!)).message).toMatch(/lacks part of the repository its commit names/);
    const recordsFirst = await blueskyRepo({ posts: 60, order: 'records-first' });
    expect((await refused((await recordsFirst.write(undefined, 1))!)).message).toMatch(/lacks part of the repository/);
    // The header, then a block whose length prefix claims 16 MiB.
    const headerLen = car[0]! + 1;
    const bomb = Buffer.concat([car.subarray(0, headerLen), Buffer.from([0x80, 0x80, 0x80, 0x08]), car.subarray(headerLen + 1, headerLen + 200)]);
    expect((await refused(bomb)).message).toMatch(/a block of \d+ bytes/);
  });

  it('turns link facets back into addresses by UTF-8 byte offsets', () => {
    const text = 'Тест 🧵 日本 see example.com/a/very-lo... and the notes';
    const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
    const start = bytes('Тест 🧵 日本 see ');
    const end = start + bytes('example.com/a/very-lo...');
    const notes = bytes('Тест 🧵 日本 see example.com/a/very-lo... and ');
    const facets = [
      { index: { byteStart: start, byteEnd: end }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a/very-long' }] },
      { index: { byteStart: notes, byteEnd: notes + bytes('the notes') }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://n.example/1' }] },
      // Overlapping the first, and past the end: ignored.
      { index: { byteStart: start + 2, byteEnd: end + 1 }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://x.example/' }] },
      { index: { byteStart: 500, byteEnd: 510 }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://y.example/' }] },
    ];
    expect(expandFacets(text, facets)).toBe('Тест 🧵 日本 see https://example.com/a/very-long and the notes (https://n.example/1)');
    expect(expandFacets(text, undefined)).toBe(text);
  });
});

describe('WordPress WXR', () => {
  const g = wordpressExport({ posts: 200, paragraphs: 2 });

  it('imports published posts only, as clean text with links, categories and tags as hashtags, dated by post_date_gmt', async () => {
    const { scan, posts } = await readAll(wxrBytes(g));
    expectSame(posts, g.publicPosts);
    expect(scan.summary).toMatchObject({ format: 'wordpress', posts: g.publicPosts.size, skipped: g.skipped });
    expect(scan.summary.skipped).toMatchObject({ draft: 30, private: 20, trashed: 10, not_a_post: 30 });
    for (const p of posts) {
      expect(p.url).toMatch(/^https:\/\/ada\.example\/2024\/\d\d\/post-\d+\/$/);
      expect(p.metrics.replies).toBe(g.publicPosts.get(p.externalId)!.likes);
    }
    expect(posts.some((p) => p.metrics.replies === 2)).toBe(true);
    expect(posts.some((p) => /Great post|hunter2|Uncategorized|wp:paragraph/.test(p.text))).toBe(false);
  });

  it('reads the encoding the XML declaration names, and a ZIP of the export', async () => {
    const latin = Buffer.from(
      wxrBytes(wordpressExport({ posts: 3 }))
        .toString('utf8')
        .replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
        .replace(/Post 0 &amp; friends: [^<]*/, 'Post 0 &amp; friends: Café déjà vu — naïve')
        .replace(/—/g, '-'),
      'latin1',
    );
    expect(latin.includes(Buffer.from('Café', 'utf8'))).toBe(false);
    const { posts } = await readAll(latin);
    expect(posts.find((p) => p.text.includes('Post 0 & friends'))!.text).toContain('Post 0 & friends: Café déjà vu - naïve');
    const zipped = await readAll((await writeZip([{ name: 'adasnotes.WordPress.2024-05-20.xml', data: wxrBytes(g) }]))!);
    expect(zipped.posts.length).toBe(g.publicPosts.size);
  });

  it('an RSS feed that is not a WordPress export is not taken for one; a truncated export is refused, not read in part', async () => {
    const rss = Buffer.from('<?xml version="1.0"?><rss version="2.0"><channel><title>x</title><item><title>a</title></item></channel></rss>');
    expect((await refused(rss)).message).toMatch(/Understood: .*WordPress/);
    expect((await refused((await writeZip([{ name: 'feed.xml', data: rss }]))!)).message).toMatch(/feed\.xml is not a WordPress export/);
    const whole = wxrBytes(g);
    expect((await refused(whole.subarray(0, Math.floor(whole.length / 2)))).message).toMatch(/ends before its <\/rss>: it is truncated/);
  });

  it('keeps link addresses in text and makes hashtags of categories', () => {
    expect(
      htmlToText(
        '<p>See <a href="https://e.example/x">the notes</a>, <a href="https://e.example/y">e.example/y</a> and <a href="https://e.example/long/path">e.example/lo…</a></p>',
        { links: true },
      ),
    ).toBe('See the notes (https://e.example/x), https://e.example/y and https://e.example/long/path');
    expect(htmlToText('<p>See <a href="https://e.example/x">the notes</a></p>')).toBe('See the notes');
    // Words that merely begin the address are words, not a shortened address.
    expect(htmlToText('<p><a href="https://example.com/">ex</a> and <a href="https://example.com/a/b">https://example.com/a/…</a></p>', { links: true })).toBe(
      'ex (https://example.com/) and https://example.com/a/b',
    );
    expect([hashtag('News & Updates'), hashtag('open source'), hashtag('日本語'), hashtag('C++'), hashtag('  ')]).toEqual([
      '#NewsUpdates',
      '#OpenSource',
      '#日本語',
      '#C',
      null,
    ]);
  });
});

describe('Instagram export', () => {
  it("undoes Meta's escaped UTF-8 in every script; captions with their media and dates; messages never read", async () => {
    const g = instagramExport({ posts: 36 });
    const zip = (await writeZip(g.files))!;
    const { scan, posts } = await readAll(zip);
    expectSame(posts, g.publicPosts, (p) => p.text);
    expect(scan.summary).toMatchObject({ format: 'instagram', container: 'zip', posts: 36, media: 36 + 9 * 2 });
    expect(scan.summary.files_used).toEqual([
      'your_instagram_activity/content/posts_1.json',
      'personal_information/personal_information/personal_information.json',
    ]);
    for (const s of META_SCRIPTS) expect(posts.some((p) => p.text.startsWith(s))).toBe(true);
    expect(new Set(posts.map((p) => p.externalId)).size).toBe(36);
    expect(posts.some((p) => p.text.includes('приватно'))).toBe(false);
  });

  it('a private account: its posts are followers-only, left out unless asked for; older layout and bare posts_1.json read', async () => {
    const g = instagramExport({ posts: 12, privateAccount: true, older: true });
    const zip = (await writeZip(g.files))!;
    expect((await refused(zip)).message).toMatch(/no post to import \(left out: 12 followers only\)/);
    const { scan, posts } = await readAll(zip, { includeNonPublic: true });
    expect(scan.summary.files_used[0]).toBe('content/posts_1.json');
    expectSame(posts, g.nonPublicPosts, (p) => p.text);
    const bare = g.files.find((f) => f.name === 'content/posts_1.json')!.data as Buffer;
    const single = await readAll(bare);
    expect(single.scan.summary.format).toBe('instagram');
    expect(single.posts.map((p) => p.text).sort()).toEqual([...g.nonPublicPosts.keys()].sort());
  });

  it('unmojibake: only strings in the shape of escaped UTF-8 change', () => {
    for (const s of [...META_SCRIPTS, 'plain ascii', '']) expect(unmojibake(JSON.parse(metaJson(s)) as string)).toBe(s);
    // Proper text, and Latin-1 that is not UTF-8 in disguise, are kept.
    expect(unmojibake('café')).toBe('café');
    expect(unmojibake('Привет')).toBe('Привет');
    expect(unmojibake('Ã©tÃ©')).toBe('été');
    expect(unmojibake('na\u00efve \u00e0')).toBe('na\u00efve \u00e0');
  });
});

describe('unknown exports', () => {
  it('the 422 for an unknown file lists every format understood', async () => {
    const err = await refused(Buffer.from('hello, not an export'));
    for (const f of ['X (data/tweets.js)', 'Mastodon', 'LinkedIn', 'Bluesky', 'WordPress', 'Instagram']) expect(err.message).toContain(f);
    expect((await refused(Buffer.from('x'), 'myspace')).message).toMatch(/x, mastodon, linkedin, bluesky, wordpress, instagram/);
  });
});
