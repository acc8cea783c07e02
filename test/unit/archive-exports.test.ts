// Reading exports as the platforms hand them out: every generated post must come out exactly as
// the author wrote it, with its audience and media, and everything else must be left out for the
// right reason — in every container (ZIP, tar.gz, bare file, gzip) and every format.
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArchiveError, bufferSource, DEFAULT_LIMITS, readExport, scanExport, type ArchivePost } from '../../server/adapters/archive/index.js';
import { unwrapLinkedInText } from '../../server/adapters/archive/linkedin.js';
import {
  fileOf,
  linkedInArchive,
  mastodonArchive,
  mastodonWarningsAndPolls,
  writeTarGz,
  writeZip,
  xArchive,
  xEditChains,
  type ExpectedPost,
  type Generated,
} from '../support/exports.js';

async function readAll(bytes: Buffer, opts: { includeNonPublic: boolean; format?: string }) {
  const scan = await scanExport(bufferSource(bytes), { includeNonPublic: opts.includeNonPublic, format: opts.format });
  const posts: ArchivePost[] = [];
  for await (const p of readExport(bufferSource(bytes), { format: scan.layout.format, includeNonPublic: opts.includeNonPublic, ownUserId: scan.ownUserId }))
    posts.push(p);
  return { scan, posts };
}

function expectSame(posts: ArchivePost[], expected: Map<string, ExpectedPost>) {
  expect(posts.length).toBe(expected.size);
  for (const p of posts) {
    const e = expected.get(p.externalId);
    expect(e, `unexpected post ${p.externalId}`).toBeDefined();
    expect({ id: p.externalId, text: p.text }).toEqual({ id: e!.externalId, text: e!.text });
    expect(p.visibility).toBe(e!.visibility);
    expect(p.replyTo).toBe(e!.replyTo);
    expect(p.metrics.likes).toBe(e!.likes);
    expect(p.metrics.reposts).toBe(e!.reposts);
    expect(p.publishedAt.toISOString()).toBe(e!.publishedAt);
    expect(p.media.map((m) => ({ type: m.type, alt_text: m.alt_text, archive_path: m.archive_path, url: m.url, width: m.width, height: m.height }))).toEqual(
      e!.media,
    );
  }
}

const both = (g: Generated) => new Map([...g.publicPosts, ...g.nonPublicPosts]);

describe('X archive', () => {
  const g = xArchive({ posts: 400, partSize: 150 });

  it('imports the own posts of a ZIP as written: entities decoded, t.co expanded, media links out, long posts whole', async () => {
    const zip = (await writeZip(g.files))!;
    const { scan, posts } = await readAll(zip, { includeNonPublic: false });
    expectSame(posts, g.publicPosts);
    expect(scan.summary.format).toBe('x');
    expect(scan.summary.container).toBe('zip');
    expect(scan.summary.files_used).toEqual([
      'data/tweets.js',
      'data/tweets-part1.js',
      'data/tweets-part2.js',
      'data/account.js',
      'data/note-tweet.js',
      'data/protected-history.js',
    ]);
    expect(scan.summary.posts).toBe(g.publicPosts.size);
    expect(scan.summary.skipped).toMatchObject(g.skipped);
    expect(scan.summary.self_replies).toBe([...g.publicPosts.values()].filter((p) => p.replyTo).length);
    expect(scan.summary.self_replies).toBeGreaterThan(0);
    // No direct message text anywhere.
    expect(posts.some((p) => p.text.includes('private message'))).toBe(false);
  });

  it('keeps posts from protected periods only on request, marked followers', async () => {
    const zip = (await writeZip(g.files))!;
    const { posts, scan } = await readAll(zip, { includeNonPublic: true });
    expectSame(posts, both(g));
    expect(scan.summary.by_visibility.followers).toBe(g.nonPublicPosts.size);
    expect(g.nonPublicPosts.size).toBeGreaterThan(0);
  });

  it('reads a bare tweets.js, inferring the account from its self-replies', async () => {
    const bare = xArchive({ posts: 200, withAccount: false });
    const { posts, scan } = await readAll(fileOf(bare, 'data/tweets.js'), { includeNonPublic: false });
    expect(scan.ownUserId).toBe('1000001');
    expect(scan.summary.container).toBe('file');
    // Without note-tweet.js long posts stay as tweets.js has them; everything else is exact.
    // Without protected-history.js nothing says which posts were protected: all are public.
    const all = new Map([...both(bare)].map(([k, e]) => [k, { ...e, visibility: 'public' as const }]));
    const short = new Map(
      [...all]
        .filter(([, e]) => !e.text.includes('past the old limit'))
        .map(([k, e]) => [k, { ...e, media: e.media.map((m) => ({ ...m, archive_path: null })) }]),
    );
    expectSame(
      posts.filter((p) => short.has(p.externalId)),
      short,
    );
    expect(posts.length).toBe(all.size);
  });

  it('finds the export inside a folder of the ZIP', async () => {
    const nested = xArchive({ posts: 60, root: 'twitter-2024-06-01-abc/' });
    const { posts } = await readAll((await writeZip(nested.files))!, { includeNonPublic: false });
    expectSame(posts, nested.publicPosts);
    expect(posts.some((p) => p.media.some((m) => m.archive_path?.startsWith('twitter-2024-06-01-abc/data/tweets_media/')))).toBe(true);
  });
});

describe('Mastodon archive', () => {
  const g = mastodonArchive({ posts: 320 });

  it('never imports direct messages, leaves followers-only posts out by default, drops boosts and replies to others', async () => {
    for (const bytes of [(await writeZip(g.files))!, await writeTarGz(g.files)]) {
      const { posts, scan } = await readAll(bytes, { includeNonPublic: false });
      expectSame(posts, g.publicPosts);
      expect(scan.summary.skipped).toMatchObject(g.skipped);
      expect(scan.summary.skipped.direct_message).toBe(20);
      expect(scan.summary.by_visibility.unlisted).toBeGreaterThan(0);
    }
  });

  it('imports followers-only posts on request (never direct messages)', async () => {
    const { posts, scan } = await readAll(await writeTarGz(g.files), { includeNonPublic: true });
    expectSame(posts, both(g));
    expect(scan.summary.container).toBe('tar.gz');
    expect(scan.summary.skipped.direct_message).toBe(20);
  });

  it('reads the bare outbox.json and a gzip of it', async () => {
    const outbox = fileOf(g, 'outbox.json');
    for (const bytes of [outbox, gzipSync(outbox)]) {
      const { posts } = await readAll(bytes, { includeNonPublic: false });
      // Without the archive around it, media have no file inside it.
      expectSame(posts, new Map([...g.publicPosts].map(([k, e]) => [k, { ...e, media: e.media.map((m) => ({ ...m, archive_path: null })) }])));
    }
  });
});

describe('X edit chains', () => {
  it('imports one post per chain of three versions (in or out of order): the last text, the first date, id and address', async () => {
    const g = xEditChains(6);
    const { posts, scan } = await readAll((await writeZip(g.files))!, { includeNonPublic: false });
    expectSame(posts, g.expected);
    expect(scan.summary.posts).toBe(12);
    for (const p of posts) expect(p.firstVersionUrl ?? null).toBe(g.expected.get(p.externalId)!.firstVersionUrl);
  });

  it('merges a chain whose later versions come before the first, across the whole file', async () => {
    const g = xEditChains(3);
    const tweets = g.files.find((f) => f.name === 'data/tweets.js')!.data as Buffer;
    // The whole file reversed: every chain's last version is read first.
    const entries = JSON.parse(tweets.toString('utf8').replace(/^[^=]*=/, '')) as unknown[];
    const reversed = Buffer.from(`window.YTD.tweets.part0 = ${JSON.stringify(entries.reverse())}`);
    const { posts } = await readAll((await writeZip([{ name: 'data/tweets.js', data: reversed }, g.files[1]!]))!, { includeNonPublic: false });
    expect(posts).toHaveLength(6);
    const chain = posts.find((p) => p.firstVersionUrl)!;
    expect(chain.text).toMatch(/^Release \d is out/);
  });
});

describe('Mastodon content warnings and polls', () => {
  it('keeps the warning, the poll with its options and votes, and the media with alt text', async () => {
    const { posts } = await readAll((await writeZip(mastodonWarningsAndPolls().files))!, { includeNonPublic: false });
    expect(posts).toHaveLength(3);
    const [cw, poll, many] = posts;
    expect(cw).toMatchObject({
      contentWarning: 'Spoilers: the finale of 「進撃の巨人」 🧵',
      poll: null,
      text: 'The last episode ends where the first one began. 𝕏 marks the spot.',
    });
    expect(cw!.media).toEqual([
      {
        type: 'image',
        url: null,
        archive_path: 'media_attachments/files/110/000/001/original/finale.jpg',
        alt_text: 'A wall at sunset, with a bird on it — مرحبا',
        width: 1600,
        height: 900,
      },
    ]);
    expect(poll).toMatchObject({
      contentWarning: 'Politics (mild)',
      text: 'Which voting system should our club use?\n\n○ First past the post\n○ Ranked choice 🗳️\n○ Approval',
      poll: {
        multiple: false,
        options: [
          { title: 'First past the post', votes: 10 },
          { title: 'Ranked choice 🗳️', votes: 25 },
          { title: 'Approval', votes: 7 },
        ],
        closes_at: '2024-05-09T09:00:00.000Z',
        voters: 42,
      },
    });
    expect(many).toMatchObject({ contentWarning: null, text: 'Which days suit you?\n\n☐ Monday\n☐ Samedi', poll: { multiple: true, voters: 5 } });
  });
});

describe('LinkedIn export', () => {
  const g = linkedInArchive({ posts: 150 });

  it('undoes the per-line quoting of multi-line posts, and keeps connections-only posts out by default', async () => {
    const { posts, scan } = await readAll((await writeZip(g.files))!, { includeNonPublic: false });
    expectSame(posts, g.publicPosts);
    expect(scan.summary.skipped).toMatchObject(g.skipped);
    // The export's quoting is gone (no doubled quote left), the author's own quotes are kept.
    expect(posts.filter((p) => p.text.includes('""'))).toEqual([]);
    expect(posts.filter((p) => p.text.startsWith('"Ship it," she said.')).length).toBeGreaterThan(0);
    const withConnections = await readAll(fileOf(g, 'Shares.csv'), { includeNonPublic: true });
    expectSame(withConnections.posts, both(g));
  });

  it("undoes the real export's shape: no opening quote on the first line, no closing quote on the last", () => {
    expect(unwrapLinkedInText('First line."\n""\n"Second line."\n"Last line')).toBe('First line.\n\nSecond line.\nLast line');
    expect(unwrapLinkedInText('He said ""hi"""\n"""Yes"" she said')).toBe('He said "hi"\n"Yes" she said');
    expect(unwrapLinkedInText('Two lines."\n"')).toBe('Two lines.\n');
    // Quotes that are the author's, not the export's: an odd quote inside a line, or a line out of the shape.
    expect(unwrapLinkedInText('He said "hi"\n"Yes" she said')).toBe('He said "hi"\n"Yes" she said');
    expect(unwrapLinkedInText('"Quoted" first."\nplain middle\n"last')).toBe('"Quoted" first."\nplain middle\n"last');
  });

  // The real shape of any lines (quotes anywhere, empty lines, every plane) comes back exactly.
  const line = fc.string({ unit: fc.constantFrom('"', 'a', ' ', '.', '😀', 'é', '""'), maxLength: 12 });
  it('property: both shapes of any multi-line text come back as written', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 2, maxLength: 6 }), (lines) => {
        const perLine = lines.map((l) => `"${l.replace(/"/g, '""')}"`).join('\n');
        expect(unwrapLinkedInText(perLine.slice(1, -1))).toBe(lines.join('\n'));
        expect(unwrapLinkedInText(perLine)).toBe(lines.join('\n'));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a text whose quotes are not all doubled inside the shape is left as it is', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 6 }), (lines) => {
        const text = lines.join('\n');
        // Text the author wrote, with a lone quote somewhere: never the export's quoting.
        const lone = `${text}\nshe said "yes`;
        expect(unwrapLinkedInText(lone)).toBe(lone);
        if (!text.includes('\n')) expect(unwrapLinkedInText(text)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('unwraps text that is wrapped line by line', () => {
    expect(unwrapLinkedInText('"…program."\n""\n"WHAT? …"')).toBe('…program.\n\nWHAT? …');
    expect(unwrapLinkedInText('"He said ""hi"""\n"bye"')).toBe('He said "hi"\nbye');
    expect(unwrapLinkedInText('"A quote on one line"')).toBe('"A quote on one line"');
    expect(unwrapLinkedInText('"starts quoted"\nbut not this one')).toBe('"starts quoted"\nbut not this one');
  });
});

describe('bad input', () => {
  const refusal = async (bytes: Buffer, opts: { format?: string; limits?: typeof DEFAULT_LIMITS } = {}) => {
    try {
      await scanExport(bufferSource(bytes), { includeNonPublic: false, ...opts });
    } catch (err) {
      expect(err).toBeInstanceOf(ArchiveError);
      return err as ArchiveError;
    }
    throw new Error('not refused');
  };

  it('a ZIP without the expected file names what is missing and what was found', async () => {
    const e = await refusal(
      (await writeZip([
        { name: 'photos/cat.jpg', data: Buffer.from('x') },
        { name: 'notes.txt', data: Buffer.from('y') },
      ]))!,
    );
    expect(e.kind).toBe('missing_file');
    expect(e.message).toContain('data/tweets.js');
    expect(e.message).toContain('photos/cat.jpg, notes.txt (2 files)');
    const x = await refusal((await writeZip(mastodonArchive({ posts: 5 }).files))!, { format: 'x' });
    expect(x.message).toMatch(/holds no data\/tweets\.js\. Found: actor\.json, outbox\.json/);
  });

  it('a truncated or corrupt archive is refused as such', async () => {
    const zip = (await writeZip(xArchive({ posts: 50 }).files))!;
    expect((await refusal(zip.subarray(0, Math.floor(zip.length * 0.7)))).kind).toBe('corrupt');
    const tgz = await writeTarGz(mastodonArchive({ posts: 50 }).files);
    expect((await refusal(tgz.subarray(0, Math.floor(tgz.length * 0.6)))).kind).toBe('corrupt');
    const flipped = Buffer.from(zip);
    // Damage the deflated bytes of the first entry (after its local header).
    for (let i = 200; i < 400; i++) flipped[i] = flipped[i]! ^ 0x5a;
    expect(['corrupt', 'unreadable']).toContain((await refusal(flipped)).kind);
  });

  it('a decompression bomb is refused by ratio, by size and by entry count before it is inflated', async () => {
    const zeros = Buffer.concat([Buffer.from('{"orderedItems": ['), Buffer.alloc(20 * 1024 * 1024, 0x20)]);
    const bomb = (await writeZip([{ name: 'outbox.json', data: zeros }]))!;
    expect(bomb.length).toBeLessThan(100_000);
    const byRatio = await refusal(bomb);
    expect(byRatio.kind).toBe('too_large');
    expect(byRatio.message).toMatch(/decompression bomb/);
    expect((await refusal(gzipSync(zeros))).kind).toBe('too_large');
    const many = (await writeZip(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}.txt`, data: Buffer.from('x') }))))!;
    expect((await refusal(many, { limits: { ...DEFAULT_LIMITS, maxEntries: 10 } })).message).toMatch(/30 entries; at most 10/);
    const big = (await writeZip(xArchive({ posts: 50 }).files))!;
    expect((await refusal(big, { limits: { ...DEFAULT_LIMITS, maxEntryBytes: 1000 } })).kind).toBe('too_large');
  });

  it('an unknown format lists the formats understood; a wrong format names the field', async () => {
    const e = await refusal(Buffer.from('just some text, not an export'));
    expect(e.kind).toBe('unknown_format');
    expect(e.message).toMatch(
      /X \(data\/tweets\.js\), Mastodon \(outbox\.json\), LinkedIn \(Shares\.csv\), Bluesky \(.*\), WordPress \(.*\), Instagram \(.*posts_1\.json\), Threads \(.*\), Medium \(.*\), Substack \(.*\), Misskey, Sharkey or Firefish \(.*\) or Pixelfed \(pixelfed-statuses\.json\)/,
    );
    const m = await refusal(fileOf(linkedInArchive({ posts: 3 }), 'Shares.csv'), { format: 'mastodon' });
    expect(m.field).toBe('format');
    expect((await refusal(Buffer.from('x'), { format: 'myspace' })).field).toBe('format');
  });

  it('an export with nothing to import says what was left out', async () => {
    const onlyDms = mastodonArchive({ posts: 2 }); // a boost and a direct message
    const e = await refusal(fileOf(onlyDms, 'outbox.json'));
    expect(e.message).toMatch(/holds no post to import \(left out: 1 direct message, 1 repost\)/);
  });

  it('a malformed data file is unreadable, naming the file', async () => {
    const e = await refusal((await writeZip([{ name: 'outbox.json', data: Buffer.from('{"orderedItems": [ {"type": "Create", ') }]))!);
    expect(e.kind).toBe('unreadable');
    expect(e.message).toContain('outbox.json');
  });
});
