// The bounds of archive reading (docs/ingest.md, "Bounds"): each hostile shape is refused with
// the kind and message its 422 carries, before the work it would cost; real shapes at the edges
// of the bounds still import. The same shapes against a running server, with the event loop and
// memory watched, are in test/integration/archive-bounds.test.ts.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  ArchiveError,
  bufferSource,
  DEFAULT_LIMITS,
  readExport,
  scanExport,
  type ArchiveLimits,
  type ArchivePost,
} from '../../server/adapters/archive/index.js';
import { storable } from '../../server/adapters/archive/index.js';
import { fileOf, linkedInArchive, mastodonArchive, writeTarGz, writeZip, xArchive } from '../support/exports.js';
import { lyingSizeTar, plainTar, rawZip, whitespaceGzip } from '../support/hostile-archives.js';

async function refusal(bytes: Buffer, limits: Partial<ArchiveLimits> = {}): Promise<ArchiveError> {
  try {
    await scanExport(bufferSource(bytes), { includeNonPublic: false, limits: { ...DEFAULT_LIMITS, ...limits } });
  } catch (err) {
    if (!(err instanceof ArchiveError)) throw err;
    return err;
  }
  throw new Error('not refused');
}

async function posts(bytes: Buffer): Promise<ArchivePost[]> {
  const scan = await scanExport(bufferSource(bytes), { includeNonPublic: false });
  const out: ArchivePost[] = [];
  for await (const p of readExport(bufferSource(bytes), { format: scan.layout.format, includeNonPublic: false, ownUserId: scan.ownUserId })) out.push(p);
  return out;
}

const tweet = (id: string, text: string, created = 'Sat Oct 26 09:00:00 +0000 2024') => ({ tweet: { id_str: id, created_at: created, full_text: text } });
const ytd = (name: string, items: unknown[]) => Buffer.from(`window.YTD.${name}.part0 = ${JSON.stringify(items, null, 2)}`);
/** `bytes` of text that compresses as prose does (a few times), not as a bomb. */
const prose = (bytes: number) =>
  randomBytes((bytes * 3) / 4)
    .toString('base64')
    .replace(/(.{7})/g, '$1 ');
/** A Mastodon outbox.json of one public post with this HTML content. */
const outboxOf = (content: string) =>
  JSON.stringify({
    orderedItems: [
      {
        type: 'Create',
        actor: 'https://m.example/users/ada',
        object: { id: 'https://m.example/1', type: 'Note', content, to: ['https://www.w3.org/ns/activitystreams#Public'], published: '2024-10-26T09:00:00Z' },
      },
    ],
  });
const tweetsJs = ytd('tweets', [tweet('1850000000000000001', 'Shipped v2.3 of the importer 🦀')]);

describe('ZIP entries', () => {
  it('more entries than the bound are refused from the end record, before one entry is read', async () => {
    const zip = rawZip(
      [{ name: 'data/tweets.js', data: tweetsJs }],
      Array.from({ length: 100_001 }, (_, i) => ({ name: `media/${i}.jpg`, local: 0 })),
    );
    const e = await refusal(zip);
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('The ZIP lists 100001 entries; at most 100000 are accepted.');
  });

  it('100,000 entries sharing one local header are refused as overlapping, before anything inflates', async () => {
    const zip = rawZip(
      [{ name: 'data/tweets.js', data: tweetsJs }],
      Array.from({ length: 100_000 }, (_, i) => ({ name: `data/tweets-part${i}.js`, local: 0 })),
    );
    const e = await refusal(zip);
    expect(e.kind).toBe('overlap');
    expect(e.message).toMatch(/^The ZIP's entries overlap: data\/tweets-part0\.js \(at byte 0, \d+ compressed bytes\) runs into data\/tweets-part1\.js/);
  });

  it('eight part files sharing one deflated body are refused as overlapping', async () => {
    const body = Buffer.concat([tweetsJs.subarray(0, -1), Buffer.from(','), Buffer.alloc(4 * 1024 * 1024, 0x20), Buffer.from(']')]);
    const zip = rawZip(
      [{ name: 'data/tweets.js', data: body }],
      Array.from({ length: 8 }, (_, i) => ({ name: i ? `data/tweets-part${i}.js` : 'data/tweets.js', local: 0 })),
    );
    expect((await refusal(zip)).kind).toBe('overlap');
  });

  it("an entry whose data runs into the next entry's header is refused when opened", async () => {
    // The central directory says 2 compressed bytes (so the listing sees no overlap), the local
    // header names a long extra field that pushes the data past the next entry.
    const zip = rawZip([
      { name: 'data/tweets.js', data: tweetsJs, method: 0 },
      { name: 'data/account.js', data: ytd('account', [{ account: { accountId: '1' } }]), method: 0 },
    ]);
    // Make the first local header's name length reach into the second entry.
    zip.writeUInt16LE(tweetsJs.length + 40, 26);
    const e = await refusal(zip);
    expect(['overlap', 'corrupt']).toContain(e.kind);
    expect(e.message).toMatch(/runs into the next entry|corrupt/);
  });

  it('entry names are bounded, one by one and all together', async () => {
    const long = rawZip([
      { name: 'data/tweets.js', data: tweetsJs },
      { name: `media/${'a'.repeat(1100)}.jpg`, data: Buffer.from('x') },
    ]);
    expect((await refusal(long)).message).toMatch(/name is 1110 characters long; at most 1024/);
    const many = rawZip([
      { name: 'data/tweets.js', data: tweetsJs },
      ...Array.from({ length: 50 }, (_, i) => ({ name: `media/${i}-${'b'.repeat(100)}.jpg`, data: Buffer.from('x') })),
    ]);
    expect((await refusal(many, { maxNamesTotal: 2000 })).message).toMatch(/add up to more than 2000 characters/);
  });

  it('a message quoting entry names stays within the 2,000 characters of an answer', async () => {
    const names = Array.from({ length: 25 }, (_, i) => ({ name: `photos/${i}-${'𝕏'.repeat(500)}.jpg`, data: Buffer.from('x') }));
    const e = await refusal(rawZip(names));
    expect(e.kind).toBe('missing_file');
    expect(e.message.length).toBeLessThanOrEqual(1800);
    expect(e.message).toMatch(/Found: photos\/0-(?:𝕏)+…, photos\/1-/u);
    const shared = await refusal(
      rawZip(
        [{ name: `data/${'a'.repeat(1000)}`, data: tweetsJs }],
        [0, 0].map(() => ({ name: `data/${'a'.repeat(1000)}`, local: 0 })),
      ),
    );
    expect(shared.kind).toBe('overlap');
    expect(shared.message.length).toBeLessThan(1000);
  });

  it('a ZIP of many real entries (an X archive with its media) is read', async () => {
    const g = xArchive({ posts: 120 });
    const media = Array.from({ length: 3000 }, (_, i) => ({ name: `data/tweets_media/1850${i}-Fk${i}.jpg`, data: Buffer.alloc(64, i % 256) }));
    const zip = (await writeZip([...g.files, ...media]))!;
    const scan = await scanExport(bufferSource(zip), { includeNonPublic: false });
    expect(scan.summary.posts).toBe(g.publicPosts.size);
    expect(scan.summary.entry_count).toBeGreaterThan(3000);
  });
});

describe('part files', () => {
  it('an X ZIP of more post files than the bound is refused naming the count (files_used stays within its 1,000)', async () => {
    const parts = Array.from({ length: 1001 }, (_, i) => ({ name: i ? `data/tweets-part${i}.js` : 'data/tweets.js', data: tweetsJs }));
    const e = await refusal((await writeZip(parts))!);
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('The ZIP holds 1001 post files (data/tweets-partN.js); at most 200 are accepted.');
  });

  it('a plain tar of 2,000 part files is refused the same way', async () => {
    const tar = await plainTar(Array.from({ length: 2000 }, (_, i) => ({ name: i ? `data/tweets-part${i}.js` : 'data/tweets.js', data: tweetsJs })));
    const e = await refusal(tar);
    expect(e.message).toBe('The TAR holds 2000 post files (data/tweets-partN.js); at most 200 are accepted.');
  });

  it('an X export without account.js keeps the ids of at most maxInferredPosts posts to infer the account', async () => {
    const bare = ytd(
      'tweets',
      Array.from({ length: 30 }, (_, i) => tweet(String(1850000000000000000n + BigInt(i)), `Post ${i}`)),
    );
    expect((await refusal(bare, { maxInferredPosts: 20 })).message).toBe(
      'The X export has no data/account.js and more than 20 posts; upload the whole archive ZIP as X hands it out (its account.js names the account).',
    );
    const withAccount = (await writeZip([
      { name: 'data/tweets.js', data: bare },
      { name: 'data/account.js', data: ytd('account', [{ account: { accountId: '1', username: 'ada' } }]) },
    ]))!;
    const scan = await scanExport(bufferSource(withAccount), { includeNonPublic: false, limits: { ...DEFAULT_LIMITS, maxInferredPosts: 20 } });
    expect(scan.summary.posts).toBe(30);
  });

  it('an export split into as many parts as the bound allows is read whole', async () => {
    const parts = Array.from({ length: 200 }, (_, i) => ({
      name: i ? `data/tweets-part${i}.js` : 'data/tweets.js',
      data: ytd('tweets', [tweet(String(1850000000000000000n + BigInt(i)), `Post number ${i}`)]),
    }));
    const scan = await scanExport(bufferSource((await writeZip(parts))!), { includeNonPublic: false });
    expect(scan.summary.posts).toBe(200);
    expect(scan.summary.files_used).toHaveLength(200);
  });
});

describe('sizes as the bytes arrive', () => {
  it('a note-tweet.js past the side-file bound is refused while it streams', async () => {
    const notes = Array.from({ length: 400 }, (_, i) => ({
      noteTweet: { createdAt: '2024-10-26T09:00:00.000Z', core: { text: `Note ${i} ${'and a long text that goes on '.repeat(20)}`, urls: [] } },
    }));
    const zip = (await writeZip([
      { name: 'data/tweets.js', data: tweetsJs },
      { name: 'data/note-tweet.js', data: ytd('note_tweet', notes) },
    ]))!;
    const e = await refusal(zip, { maxSideFileBytes: 64 * 1024 });
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('note-tweet.js is larger than 65536 bytes; at most 65536 are accepted for this file.');
  });

  it('one post of more than 4 MiB in outbox.json or tweets.js is refused as its bytes arrive', async () => {
    const huge = prose(5 * 1024 * 1024); // 5 MiB of text in one post
    const outbox = outboxOf(huge);
    const e = await refusal((await writeZip([{ name: 'outbox.json', data: Buffer.from(outbox) }]))!);
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('outbox.json holds a post (or a run of bytes between two posts) larger than 4194304 bytes; at most 4194304 are accepted.');
    const x = await refusal(ytd('tweets', [tweet('1', huge)]));
    expect(x.message).toMatch(/^tweets\.js holds a post .* larger than 4194304 bytes/);
  });

  it('one record of more than 4 MiB in Shares.csv is refused by the CSV parser', async () => {
    const csv = `Date,ShareLink,ShareCommentary,SharedUrl,MediaUrl,Visibility\r\n2024-10-28 14:05:11,https://www.linkedin.com/feed/update/1,"${prose(5 * 1024 * 1024)}",,,MEMBER_NETWORK\r\n`;
    const e = await refusal((await writeZip([{ name: 'Shares.csv', data: Buffer.from(csv) }]))!);
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('Shares.csv holds a record larger than 4194304 characters; at most 4194304 are accepted for one post.');
  });

  it('posts just under the single-value bound import', async () => {
    const big = prose(3 * 1024 * 1024);
    const got = await posts(ytd('tweets', [tweet('1850000000000000001', big)]));
    expect(got[0]!.text).toBe(big.trim());
  });
});

describe('bombs, refused as they inflate', () => {
  it('a gzip of an outbox head and 10 GiB of whitespace is refused by its ratio after a few MiB', async () => {
    const head =
      '{"orderedItems": [{"type":"Create","actor":"https://m.example/users/ada","object":{"id":"https://m.example/1","type":"Note","content":"hi","to":["https://www.w3.org/ns/activitystreams#Public"],"published":"2024-10-26T09:00:00Z"}},';
    const bomb = whitespaceGzip(head, 10 * 1024 ** 3);
    expect(bomb.length).toBeLessThan(20 * 1024 ** 2);
    const e = await refusal(bomb);
    expect(e.kind).toBe('too_large');
    expect(e.message).toBe('The gzip file inflates more than 200 times its compressed size; refused as a possible decompression bomb.');
  });

  it('a ZIP entry that inflates past its declared size is corrupt, one that declares a bomb is refused before it inflates', async () => {
    const body = Buffer.concat([Buffer.from('{"orderedItems": ['), Buffer.alloc(16 * 1024 * 1024, 0x20), Buffer.from(']}')]);
    const lying = rawZip([{ name: 'outbox.json', data: body }]);
    // Declare 1,000 bytes inflated (central directory: offset 24 of the entry) where 16 MiB come out.
    const cd = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    lying.writeUInt32LE(1000, cd + 24);
    const e = await refusal(lying);
    expect(e.kind).toBe('corrupt');
    expect(e.message).toMatch(/inflates to more than the 1000 bytes its directory declares/);
    const declared = await refusal(rawZip([{ name: 'outbox.json', data: body }]));
    expect(declared.message).toMatch(/^outbox\.json in the ZIP inflates \d+ times its compressed size; refused as a possible decompression bomb\.$/);
  });

  it('a gzip of a real outbox (ratio well under the bound) imports', async () => {
    const g = mastodonArchive({ posts: 400 });
    const scan = await scanExport(bufferSource(gzipSync(fileOf(g, 'outbox.json'))), { includeNonPublic: false });
    expect(scan.summary.posts).toBe(g.publicPosts.size);
  });
});

describe('archives cut short, or whose headers declare more than they hold (issue 30)', () => {
  const TIB = 1n << 40n;

  it('a tar whose outbox.json declares 1 TiB (base-256) and holds 1 KB is refused at once as truncated', async () => {
    const e = await refusal(await lyingSizeTar('outbox.json', TIB, 1024));
    expect(e.kind).toBe('corrupt');
    expect(e.message).toBe('The tar file ends inside outbox.json: its header declares 1099511627776 bytes, the upload holds 1024 of them. It is truncated.');
  });

  it('the same tar gzipped is refused from its header: no upload of that size inflates to 1 TiB under the ratio bound', async () => {
    const e = await refusal(gzipSync(await lyingSizeTar('outbox.json', TIB, 1024)));
    expect(e.kind).toBe('corrupt');
    expect(e.message).toMatch(
      /^outbox\.json in the tar\.gz declares 1099511627776 bytes, more than an upload of \d+ bytes can inflate to: it is corrupt or truncated\.$/,
    );
  });

  it('a tar.gz whose entry declares no more than it could inflate to, but ends early, is refused when the data ends', async () => {
    const e = await refusal(gzipSync(await lyingSizeTar('outbox.json', 5000n, 1024)));
    expect(e.kind).toBe('corrupt');
    expect(e.message).toMatch(/truncated/);
  });

  it('a real Mastodon archive cut anywhere, as a tar, a tar.gz or a ZIP, is refused as corrupt or truncated (never waited on)', async () => {
    const g = mastodonArchive({ posts: 60 });
    const tarBytes = await plainTar(g.files.map((f) => ({ name: f.name, data: f.data as Buffer })));
    const containers: Array<[string, Buffer]> = [
      ['tar', tarBytes],
      ['tar.gz', await writeTarGz(g.files)],
      ['zip', (await writeZip(g.files))!],
    ];
    for (const [kind, whole] of containers) {
      expect((await scanExport(bufferSource(whole), { includeNonPublic: false })).summary.posts).toBe(g.publicPosts.size);
      for (const fraction of [0.3, 0.5, 0.8, 0.99]) {
        const cut = whole.subarray(0, Math.floor(whole.length * fraction));
        const e = await refusal(cut);
        expect(e.kind, `${kind} cut at ${fraction}: ${e.message}`).toBe('corrupt');
        expect(e.message, kind).toMatch(/truncated/);
      }
    }
  });
});

describe('time linear in the input', () => {
  it('20,000 long posts of one second are each matched with their own note', async () => {
    const n = 20_000;
    const notes = [];
    const tweets = [];
    for (let i = 0; i < n; i++) {
      const whole = `Thread ${i}: ${'a long post that goes past the old limit of the platform, '.repeat(6)}end ${i}.`;
      notes.push({ noteTweet: { createdAt: '2024-10-26T09:00:00.000Z', core: { text: whole, urls: [] } } });
      tweets.push(tweet(String(1850000000000000000n + BigInt(i)), `${whole.slice(0, 270)}…`));
    }
    const zip = (await writeZip([
      { name: 'data/tweets.js', data: ytd('tweets', tweets) },
      { name: 'data/note-tweet.js', data: ytd('note_tweet', notes) },
    ]))!;
    const got = await posts(zip);
    expect(got).toHaveLength(n);
    for (const [i, p] of got.entries()) expect(p.text.endsWith(`end ${i}.`), p.text.slice(0, 20)).toBe(true);
  });

  it('a post listing thousands of t.co links has each expanded and its media link taken out', async () => {
    const links = Array.from({ length: 5000 }, (_, i) => ({ url: `https://t.co/L${i}`, expanded_url: `https://example.com/${i}` }));
    const t = {
      tweet: {
        id_str: '1850000000000000001',
        created_at: 'Sat Oct 26 09:00:00 +0000 2024',
        full_text: `${links.map((l) => l.url).join(' ')} https://t.co/Media1`,
        entities: { urls: links, media: [{ url: 'https://t.co/Media1', type: 'photo', media_url_https: 'https://pbs.twimg.com/media/F1.jpg' }] },
      },
    };
    const [p] = await posts(ytd('tweets', [t]));
    expect(p!.text).toBe(links.map((l) => l.expanded_url).join(' '));
    expect(p!.media).toHaveLength(1);
  });
});

describe('text a database can store', () => {
  it('NUL is dropped and lone surrogates become U+FFFD, everything else kept', () => {
    expect(storable('a\u0000b')).toBe('ab');
    expect(storable('x\uD83Dy')).toBe('x\uFFFDy');
    expect(storable('x\uDE00y')).toBe('x\uFFFDy');
    expect(storable('🦀 𝕏 𠀀 \uD83D')).toBe('🦀 𝕏 𠀀 \uFFFD');
    expect(storable('plain ✓')).toBe('plain ✓');
  });

  it('posts of every format whose text holds NUL or lone surrogates come out storable', async () => {
    const bad = 'Before\u0000after \uD83D half \uDE00 half 🦀';
    const clean = 'Beforeafter \uFFFD half \uFFFD half 🦀';
    const x = await posts(ytd('tweets', [tweet('1850000000000000001', bad)]));
    expect(x[0]!.text).toBe(clean);
    const outbox = outboxOf(`<p>${bad}</p>`);
    expect((await posts(Buffer.from(outbox)))[0]!.text).toBe(clean);
    const li = linkedInArchive({ posts: 3 });
    const csv = Buffer.concat([
      fileOf(li, 'Shares.csv'),
      Buffer.from(`2024-10-29 10:00:00,https://www.linkedin.com/feed/update/9,"${bad}",,,MEMBER_NETWORK\r\n`),
    ]);
    expect((await posts(csv)).some((p) => p.text === clean)).toBe(true);
  });
});
