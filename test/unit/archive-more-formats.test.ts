// The exports added by issue 34, read as their authors wrote them: Threads (Meta's escaped UTF-8
// mixed with characters written as themselves), Medium (stories and drafts), Substack (free,
// paid-only and unpublished posts), Misskey notes (content warnings, renotes, replies, every
// audience) and Pixelfed statuses (as Pixelfed writes them, a thousand at a time); every post must
// come out exactly as expected and everything else be counted out for the right reason.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ArchiveError, bufferSource, DEFAULT_LIMITS, scanExport } from '../../server/adapters/archive/index.js';
import { expectSame, readAll } from '../support/archive-read.js';
import { unmojibake } from '../../server/adapters/archive/instagram.js';
import { mediumText } from '../../server/adapters/archive/medium.js';
import { mediumExport, misskeyExport, mixedMeta, pixelfedExport, substackExport, threadsExport } from '../support/exports-more.js';
import { writeZip } from '../support/exports.js';
import { instagramExport } from '../support/exports-formats.js';

const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);

describe("Meta's escaped UTF-8 mixed with characters written as themselves", () => {
  it('decodes only the escaped runs and never changes a character written as itself', () => {
    for (const s of ['Café déjà vu — naïve façade', 'Привет 😍🔥 東京', 'na\u00efve \u00e0 la', 'Türkçe ğüşıöç', '«guillemets» ½ °C']) {
      for (const offset of [0, 1]) expect(unmojibake(JSON.parse(mixedMeta(s, offset)) as string)).toBe(s);
      expect(unmojibake(s)).toBe(s);
    }
    // One string, both ways: `caf\u00c3\u00a9` next to a raw `é` and a raw emoji.
    expect(unmojibake('caf\u00c3\u00a9 et caf\u00e9 😀 \u00f0\u009f\u0098\u0080')).toBe('café et café 😀 😀');
  });
});

describe('Threads (threads_and_replies.json)', () => {
  it('reads every post with its text as typed, its pictures and date; empty entries counted out', async () => {
    const g = threadsExport({ posts: 40 });
    const zip = (await writeZip(g.files))!;
    const { scan, posts } = await readAll(zip);
    expectSame(posts, g.publicPosts, (p) => p.text);
    expect(scan.summary).toMatchObject({ format: 'threads', container: 'zip', posts: g.publicPosts.size, skipped: g.skipped });
    expect(scan.summary.skipped.empty).toBeGreaterThan(0);
    expect(new Set(posts.map((p) => p.externalId)).size).toBe(posts.length);
    // The bare file is read too.
    const bare = g.files.find((f) => f.name.endsWith('threads_and_replies.json'))!.data as Buffer;
    expect((await readAll(gzipSync(bare))).scan.summary).toMatchObject({ format: 'threads', container: 'gzip', posts: g.publicPosts.size });
    // One Meta export holding Instagram posts and Threads: Instagram unless Threads is asked for.
    const both = (await writeZip([...instagramExport({ posts: 4 }).files, ...g.files.filter((f) => !f.name.startsWith('personal_information'))]))!;
    expect((await readAll(both)).scan.summary).toMatchObject({ format: 'instagram', posts: 4 });
    expect((await readAll(both, { format: 'threads' })).scan.summary).toMatchObject({ format: 'threads', posts: g.publicPosts.size });
  });
});

describe('Medium export ZIP', () => {
  it('reads each story as title then text with its links and address; drafts counted out', async () => {
    const g = mediumExport({ posts: 24 });
    const { scan, posts } = await readAll((await writeZip(g.files))!);
    expectSame(posts, g.publicPosts);
    expect(scan.summary).toMatchObject({ format: 'medium', posts: g.publicPosts.size, skipped: { draft: 6 } });
    for (const p of posts) expect(p.url).toBe(p.externalId);
  });

  it('keeps the title once when the story repeats it, and reads a page without a date as undated', () => {
    const page =
      '<article class="h-entry"><h1 class="p-name">Hello &amp; bye</h1><section data-field="body"><h3>Hello &amp; bye</h3><p>Body</p></section></article>';
    expect(mediumText(page)).toEqual({ text: 'Hello & bye\n\nBody', date: '', url: null });
  });
});

describe('Substack export ZIP', () => {
  it('imports free posts; paid-only and founding posts only on request; unpublished posts never', async () => {
    const g = substackExport({ posts: 36 });
    const zip = (await writeZip(g.files))!;
    const { scan, posts } = await readAll(zip);
    expectSame(posts, g.publicPosts);
    expect(scan.summary).toMatchObject({ format: 'substack', container: 'zip', posts: g.publicPosts.size, skipped: g.skipped });
    expect(scan.summary.skipped).toMatchObject({ followers_only: 12, draft: 6 });
    const all = await readAll(zip, { includeNonPublic: true });
    expectSame(all.posts, new Map([...g.publicPosts, ...g.nonPublicPosts]));
    expect(all.scan.summary.by_visibility).toMatchObject({ public: g.publicPosts.size, followers: g.nonPublicPosts.size });
    expect(all.scan.summary.skipped).toMatchObject({ followers_only: 0, draft: 6 });
  });
});

describe('Misskey notes export', () => {
  it('keeps the content warning, the own thread and quotes; pure renotes, replies to others and direct notes left out', async () => {
    const g = misskeyExport({ notes: 60 });
    const { scan, posts } = await readAll(g.json);
    expectSame(posts, g.publicPosts);
    expect(scan.summary).toMatchObject({ format: 'misskey', container: 'file', posts: g.publicPosts.size, skipped: g.skipped });
    expect(scan.summary.posts + sum(scan.summary.skipped)).toBe(60);
    const warned = posts.filter((p) => p.contentWarning);
    expect(warned.length).toBe(6);
    expect(warned[0]!.contentWarning).toMatch(/^spoilers for \d+$/);
    expect(scan.summary.self_replies).toBeGreaterThan(0);
    expect(scan.summary.by_visibility.unlisted).toBeGreaterThan(0);
    const all = await readAll((await writeZip(g.files))!, { includeNonPublic: true });
    expectSame(all.posts, new Map([...g.publicPosts, ...g.nonPublicPosts]));
    expect(all.scan.summary.skipped).toMatchObject({ direct_message: g.skipped.direct_message, followers_only: 0 });
  });
});

describe('Pixelfed statuses export', () => {
  it('reads the statuses from the thousands Pixelfed writes, with alt text and own threads; shares, comments, drafts, archived and direct left out', async () => {
    for (const chunk of [1000, 7]) {
      const g = pixelfedExport({ statuses: 45, chunk });
      const { scan, posts } = await readAll(g.json);
      expectSame(posts, g.publicPosts);
      expect(scan.summary).toMatchObject({ format: 'pixelfed', posts: g.publicPosts.size, skipped: g.skipped });
      expect(scan.summary.posts + sum(scan.summary.skipped)).toBe(45);
      expect(scan.summary.self_replies).toBeGreaterThan(0);
    }
    // A bare array of statuses (no thousands) is read the same.
    const g = pixelfedExport({ statuses: 18 });
    const statuses = (JSON.parse(g.json.toString()) as Array<{ data: unknown[] }>).flatMap((c) => c.data);
    const { posts } = await readAll(Buffer.from(JSON.stringify(statuses)));
    expectSame(posts, g.publicPosts);
  });
});

describe('files that are none of these', () => {
  it('are refused naming every format read', async () => {
    const err = (await scanExport(bufferSource(Buffer.from('[{"hello": "world"}]')), { includeNonPublic: false }).catch((e: unknown) => e)) as ArchiveError;
    expect(err).toBeInstanceOf(ArchiveError);
    for (const name of ['Threads', 'Medium', 'Substack', 'Misskey', 'Pixelfed']) expect(err.message).toContain(name);
    const zip = (await writeZip([{ name: 'notes.txt', data: Buffer.from('hi') }]))!;
    const missing = (await scanExport(bufferSource(zip), { includeNonPublic: false, format: 'substack' }).catch((e: unknown) => e)) as ArchiveError;
    expect(missing.message).toMatch(/holds no posts\.csv \(Substack\)\. Found: notes\.txt/);
  });
});

describe('bounds', () => {
  const limits = { ...DEFAULT_LIMITS, maxValueBytes: 2048 };
  const tooLarge = async (bytes: Buffer) => {
    const err = (await scanExport(bufferSource(bytes), { includeNonPublic: false, limits }).catch((e: unknown) => e)) as ArchiveError;
    expect(err).toBeInstanceOf(ArchiveError);
    expect(err.kind).toBe('too_large');
    return err.message;
  };

  it('one post past the single-value bound is refused, naming its file, in every new format', async () => {
    const big = 'x'.repeat(4096);
    // JSON is fed to its parser 64 KiB at a time: an element is measured to that grain.
    const huge = 'x'.repeat(200_000);
    const medium = mediumExport({ posts: 2, draftEvery: 0 });
    medium.files.push({
      name: 'posts/2024-01-01_Big-0123.html',
      data: Buffer.from(`<article class="h-entry"><section data-field="body"><p>${big}</p></section></article>`),
    });
    expect(await tooLarge((await writeZip(medium.files))!)).toMatch(/posts\/2024-01-01_Big-0123\.html is larger than 2048 bytes/);
    const substack = substackExport({ posts: 2 });
    substack.files.find((f) => f.name === 'posts/140000000.issue-0.html')!.data = Buffer.from(`<p>${big}</p>`);
    expect(await tooLarge((await writeZip(substack.files))!)).toMatch(/posts\/140000000\.issue-0\.html is larger than 2048 bytes/);
    const csv = Buffer.from(`post_id,post_date,is_published,audience,title\n1.a,2024-01-01T00:00:00Z,true,everyone,${big}\n`);
    expect(await tooLarge(csv)).toMatch(/holds a record larger than 2048 characters/);
    const notes = Buffer.from(JSON.stringify([{ id: '9a', createdAt: '2024-01-01T00:00:00Z', visibility: 'public', fileIds: [], text: huge }]));
    expect(await tooLarge(notes)).toMatch(/larger than 2048 bytes/);
    const statuses = Buffer.from(JSON.stringify([{ data: [{ _v: 1, id: '1', created_at: '2024-01-01T00:00:00Z', content: huge }] }]));
    expect(await tooLarge(statuses)).toMatch(/larger than 2048 bytes/);
  });
});
