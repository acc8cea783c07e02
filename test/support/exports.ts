// Realistic data exports, built from the platforms' documented formats at any size: X archive
// ZIPs, Mastodon archives (ZIP, tar.gz), LinkedIn export ZIPs, and their bare files. They carry
// the mess real exports have — direct messages, followers-only and protected posts, boosts and
// retweets, replies to others and self-threads, HTML entities, t.co and media links, long posts
// in note-tweet.js, LinkedIn's per-line quoting, and text from every Unicode plane — and each
// generator returns what a correct import must produce, post by post, to compare against.
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import yazl from 'yazl';

export interface ExpectedPost {
  externalId: string;
  text: string;
  visibility: 'public' | 'unlisted' | 'followers' | 'connections';
  media: Array<{ type: string; alt_text: string | null; archive_path: string | null; url: string | null; width: number | null; height: number | null }>;
  replyTo: string | null;
  likes: number;
  reposts: number;
  publishedAt: string;
  /** The date as written, when the export's date is one the service cannot read (`dates` of a builder). */
  unreadDate?: string;
}

export interface Generated {
  /** Files of the export by their path inside the archive. */
  files: Array<{ name: string; data: Buffer | (() => Readable) }>;
  /** Posts a default import (public only) must produce, by external id. */
  publicPosts: Map<string, ExpectedPost>;
  /** Posts an import with include_non_public must produce in addition. */
  nonPublicPosts: Map<string, ExpectedPost>;
  /** What must be left out, by reason. */
  skipped: Record<string, number>;
}

/** A small deterministic PRNG (mulberry32), so that every generated export is the same. */
export function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]! };
}

/** Text with what real posts carry: every Unicode plane, emoji sequences, combining marks, RTL. */
export const UNICODE_SAMPLES = [
  'Café déjà vu — naïve façade',
  'e\u0301 with a combining accent, and Å as A\u030A',
  '日本語のテキストと中文字符，还有한국어',
  '👩🏽‍💻 shipped it 🚀🧵 — family 👨‍👩‍👧‍👦 and flag 🇫🇷',
  'Math: 𝕏 𝔸 𝟙𝟚𝟛 and Egyptian 𓀀𓁐 from the astral planes',
  'RTL: مرحبا بالعالم and שלום עולם mixed',
  'Zero\u200Bwidth and non\u00A0breaking and soft\u00ADhyphen',
  'Rare CJK extension B: 𠀀𠀁𪚥 and a private-use char \uE000',
  'Quotes: "double", \u2018single\u2019, «guillemets» and `backticks`',
];

const TOPICS = [
  'release notes',
  'a thread on testing',
  'why we moved to PostgreSQL',
  'hiring',
  'our roadmap',
  'a bug we found',
  'conference talk',
  'open source',
];

function stamp(base: number, i: number) {
  return new Date(base - i * 3_600_000 - (i % 7) * 61_000);
}

/** X's created_at format: `Wed Oct 10 20:19:24 +0000 2018`. */
function xDate(d: Date) {
  const s = d.toUTCString(); // "Wed, 10 Oct 2018 20:19:24 GMT"
  const [dow, day, mon, year, time] = s.replace(',', '').split(' ');
  return `${dow} ${mon} ${day} ${time} +0000 ${year}`;
}

const WORDS =
  'the a release team test data export archive post thread launch build ship fix bug user api sync fast slow memory cache queue worker note idea plan week today why how what open source community design'.split(
    ' ',
  );
/** Words drawn at random (so that an archive of them compresses like real text), about `bytes` long. */
function fillerText(r: ReturnType<typeof rng>, bytes: number | undefined): string {
  if (!bytes) return '';
  let t = '';
  while (t.length < bytes) t += ` ${r.pick(WORDS)}${r.int(10) === 0 ? ` ${r.int(100000)}` : ''}`;
  return t;
}

const escapeXHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface XOptions {
  posts: number;
  seed?: number;
  /** Split tweets.js into tweets.js + tweets-part1.js … of this many tweets. */
  partSize?: number;
  withAccount?: boolean;
  /** A folder around data/, as when an archive was unpacked and zipped again. */
  root?: string;
  /** Pad each tweet's text to make the file larger (bytes of filler per post). */
  filler?: number;
}

/** An X archive: data/account.js, data/tweets.js (+ parts), data/note-tweet.js, data/protected-history.js, media. */
export function xArchive(o: XOptions): Generated {
  const r = rng(o.seed ?? 1);
  const own = '1000001';
  const base = Date.UTC(2024, 5, 1, 12, 0, 0);
  const root = o.root ?? '';
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = { repost: 0, reply: 0, followers_only: 0, direct_message: 0, empty: 0, unreadable: 0 };
  const tweets: unknown[] = [];
  const notes: unknown[] = [];
  const media: Array<{ name: string; data: Buffer }> = [];
  // The account was protected for a while: posts then were for followers only.
  const protectFrom = stamp(base, Math.floor(o.posts * 0.62));
  const protectTo = stamp(base, Math.floor(o.posts * 0.6));
  let lastOwn: string | null = null;
  for (let i = 0; i < o.posts; i++) {
    const filler = fillerText(r, o.filler);
    const id = String(1_700_000_000_000_000_000n + BigInt(i) * 7919n);
    const created = stamp(base, i);
    const kind = i % 20;
    const topic = r.pick(TOPICS);
    const uni = UNICODE_SAMPLES[i % UNICODE_SAMPLES.length]!;
    let written = `Post ${i} about ${topic} & <things> — ${uni}${filler}`;
    const t: Record<string, unknown> = {
      edit_info: { initial: { editTweetIds: [id], editableUntil: created.toISOString(), editsRemaining: '5', isEditEligible: true } },
      retweeted: false,
      source: '<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>',
      entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
      display_text_range: ['0', '280'],
      favorite_count: String((i * 37) % 500),
      id_str: id,
      id,
      truncated: false,
      retweet_count: String((i * 13) % 90),
      possibly_sensitive: false,
      created_at: xDate(created),
      favorited: false,
      lang: 'en',
    };
    const entities = t.entities as { urls: unknown[]; user_mentions: unknown[]; hashtags: unknown[] };
    const expectMedia: ExpectedPost['media'] = [];
    if (kind === 0) {
      t.full_text = `RT @grace: ${escapeXHtml(written)}`;
      tweets.push({ tweet: t });
      skipped.repost! += 1;
      continue;
    }
    if (kind === 1) {
      t.in_reply_to_status_id_str = '99999';
      t.in_reply_to_user_id_str = '2000002';
      t.in_reply_to_screen_name = 'grace';
      t.full_text = `@grace ${escapeXHtml(written)}`;
      entities.user_mentions.push({ name: 'Grace', screen_name: 'grace', indices: ['0', '6'], id_str: '2000002', id: '2000002' });
      tweets.push({ tweet: t });
      skipped.reply! += 1;
      continue;
    }
    let text = escapeXHtml(written);
    if (kind === 2 || kind === 9) {
      const short = `https://t.co/L${i.toString(36)}`;
      const long = `https://example.com/${topic.replace(/ /g, '-')}/${i}?utm_source=x&ref=a%20b`;
      text += ` ${short}`;
      written += ` ${long}`;
      entities.urls.push({ url: short, expanded_url: long, display_url: long.slice(8, 30) + '…', indices: ['0', '23'] });
    }
    if (kind === 3 || kind === 11) {
      const mediaLink = `https://t.co/M${i.toString(36)}`;
      text += ` ${mediaLink}`;
      const file = `M${i.toString(36)}xYz.jpg`;
      const m = {
        expanded_url: `https://x.com/ada/status/${id}/photo/1`,
        url: mediaLink,
        media_url: `http://pbs.twimg.com/media/${file}`,
        media_url_https: `https://pbs.twimg.com/media/${file}`,
        id_str: `${id}9`,
        type: 'photo',
        sizes: { large: { w: '2048', h: '1536', resize: 'fit' }, thumb: { w: '150', h: '150', resize: 'crop' } },
        display_url: 'pic.x.com/abc',
        indices: ['100', '123'],
        ...(kind === 3 ? { ext_alt_text: `A chart of ${topic}, rising` } : {}),
      };
      (t.entities as Record<string, unknown>).media = [m];
      t.extended_entities = { media: [m] };
      const inside = kind === 3 ? `${root}data/tweets_media/${id}-${file}` : null;
      if (inside) media.push({ name: inside, data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from(`jpeg ${i}`)]) });
      expectMedia.push({
        type: 'image',
        alt_text: kind === 3 ? `A chart of ${topic}, rising` : null,
        archive_path: inside,
        url: `https://pbs.twimg.com/media/${file}`,
        width: 2048,
        height: 1536,
      });
    }
    let visibility: ExpectedPost['visibility'] = 'public';
    if (created >= protectFrom && created < protectTo) visibility = 'followers';
    let replyTo: string | null = null;
    if (kind === 5 && lastOwn) {
      t.in_reply_to_status_id_str = lastOwn;
      t.in_reply_to_user_id_str = own;
      t.in_reply_to_screen_name = 'ada';
      replyTo = lastOwn;
    }
    if (kind === 7) {
      // A long post: tweets.js has it cut with an ellipsis, note-tweet.js has all of it.
      const long = `${written} ${'And more detail that goes past the old limit. '.repeat(8)}The end — ${uni}`;
      text = `${escapeXHtml(written).slice(0, 200)}…`;
      notes.push({
        noteTweet: {
          noteTweetId: `${id}7`,
          updatedAt: created.toISOString(),
          lifecycle: { value: '1', name: 'Active' },
          createdAt: created.toISOString(),
          core: { styletags: [], urls: [], text: escapeXHtml(long), mentions: [], cashtags: [], hashtags: [] },
        },
      });
      written = long;
    }
    t.full_text = text;
    tweets.push({ tweet: t });
    const expected: ExpectedPost = {
      externalId: id,
      text: written.trim(),
      visibility,
      media: expectMedia,
      replyTo,
      likes: Number(t.favorite_count),
      reposts: Number(t.retweet_count),
      publishedAt: new Date(Math.floor(created.getTime() / 1000) * 1000).toISOString(),
    };
    if (visibility === 'public') publicPosts.set(id, expected);
    else {
      nonPublicPosts.set(id, expected);
      skipped.followers_only! += 1;
    }
    // Replies only continue a thread of public posts, so that both import modes see the parent.
    if (visibility === 'public') lastOwn = id;
  }
  const ytd = (name: string, entries: unknown[]) => Buffer.from(`window.YTD.${name}.part0 = ${JSON.stringify(entries, null, 2)}`);
  const files: Generated['files'] = [];
  if (o.withAccount !== false) {
    files.push({
      name: `${root}data/account.js`,
      data: ytd('account', [
        {
          account: {
            email: 'ada@example.com',
            createdVia: 'web',
            username: 'ada',
            accountId: own,
            createdAt: '2009-01-01T00:00:00.000Z',
            accountDisplayName: 'Ada 🧮',
          },
        },
      ]),
    });
  }
  const partSize = o.partSize ?? tweets.length;
  for (let p = 0; p * partSize < tweets.length; p++) {
    const chunk = tweets.slice(p * partSize, (p + 1) * partSize);
    const name = p === 0 ? `${root}data/tweets.js` : `${root}data/tweets-part${p}.js`;
    files.push({ name, data: Buffer.from(`window.YTD.tweets.part${p} = ${JSON.stringify(chunk, null, 2)}`) });
  }
  files.push({ name: `${root}data/note-tweet.js`, data: ytd('note_tweet', notes) });
  files.push({
    name: `${root}data/protected-history.js`,
    data: ytd('protected_history', [
      { protectedHistory: { protectedAt: protectFrom.toISOString(), action: 'Protect' } },
      { protectedHistory: { protectedAt: protectTo.toISOString(), action: 'Unprotect' } },
    ]),
  });
  files.push({
    name: `${root}data/direct-messages.js`,
    data: ytd('direct_messages', [
      { dmConversation: { conversationId: '1-2', messages: [{ messageCreate: { text: 'a private message that must never be imported' } }] } },
    ]),
  });
  files.push({ name: `${root}Your archive.html`, data: Buffer.from('<!doctype html><title>Your archive</title>') });
  files.push(...media);
  return { files, publicPosts, nonPublicPosts, skipped };
}

export interface MastodonOptions {
  posts: number;
  seed?: number;
  filler?: number;
  /** The `published` of some posts, by index, written as given (an export with odd dates). */
  dates?: Map<number, string>;
}

const AS_PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** A Mastodon archive: outbox.json (+ actor.json, media_attachments/…). */
export function mastodonArchive(o: MastodonOptions): Generated {
  const actor = 'https://mastodon.example/users/ada';
  const base = Date.UTC(2024, 3, 1, 8, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = { repost: 0, reply: 0, followers_only: 0, direct_message: 0, empty: 0, unreadable: 0 };
  const items: unknown[] = [];
  const media: Array<{ name: string; data: Buffer }> = [];
  const r = rng(o.seed ?? 1);
  let lastOwn: string | null = null;
  for (let i = 0; i < o.posts; i++) {
    const filler = fillerText(r, o.filler);
    const sid = String(110_000_000_000_000_000n + BigInt(i) * 104729n);
    const id = `${actor}/statuses/${sid}`;
    const odd = o.dates?.get(i);
    const published = odd ?? stamp(base, i).toISOString().replace('.000Z', 'Z');
    const kind = i % 16;
    const uni = UNICODE_SAMPLES[i % UNICODE_SAMPLES.length]!;
    if (kind === 0) {
      items.push({
        id: `${id}/activity`,
        type: 'Announce',
        actor,
        published,
        to: [AS_PUBLIC],
        cc: [`${actor}/followers`],
        object: 'https://other.example/users/bob/statuses/1',
      });
      skipped.repost! += 1;
      continue;
    }
    let to = [AS_PUBLIC];
    let cc = [`${actor}/followers`];
    let visibility: ExpectedPost['visibility'] | 'direct' = 'public';
    if (kind === 1) {
      to = ['https://other.example/users/bob'];
      cc = [];
      visibility = 'direct';
    } else if (kind === 2 || kind === 12) {
      to = [`${actor}/followers`];
      cc = [];
      visibility = 'followers';
    } else if (kind === 3) {
      to = [`${actor}/followers`];
      cc = [AS_PUBLIC];
      visibility = 'unlisted';
    }
    let inReplyTo: string | null = null;
    let replyTo: string | null = null;
    if (kind === 4) inReplyTo = 'https://other.example/users/bob/statuses/42';
    if (kind === 5 && lastOwn) inReplyTo = replyTo = lastOwn;
    const link = `https://example.com/articles/${i}/a-very-long-path-that-gets-shortened`;
    const content =
      `<p>Post ${i} &amp; friends: ${uni.replace(/&/g, '&amp;').replace(/</g, '&lt;')}${filler} <a href="https://other.example/@bob" class="u-url mention">@<span>bob</span></a> ` +
      `<a href="https://mastodon.example/tags/release" class="mention hashtag" rel="tag">#<span>release</span></a></p>` +
      `<p>Read: <a href="${link}" target="_blank" rel="nofollow noopener noreferrer"><span class="invisible">https://</span><span class="ellipsis">example.com/articles/${i}/a-ve</span><span class="invisible">ry-long-path-that-gets-shortened</span></a> it&#39;s &quot;good&quot;</p>`;
    const text = `Post ${i} & friends: ${uni.replace(/[ \t\u00a0]+/g, ' ').trim()}${filler} @bob #release\n\nRead: ${link} it's "good"`;
    const attachment: unknown[] = [];
    const expectMedia: ExpectedPost['media'] = [];
    if (kind === 6 || kind === 7) {
      const path = `/media_attachments/files/110/${String(i).padStart(3, '0')}/original/img${i}.png`;
      attachment.push({
        type: 'Document',
        mediaType: 'image/png',
        url: path,
        name: kind === 6 ? `Screenshot of ${uni}` : null,
        blurhash: 'UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH',
        width: 1200,
        height: 800,
      });
      media.push({ name: path.slice(1), data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) });
      expectMedia.push({
        type: 'image',
        alt_text: kind === 6 ? `Screenshot of ${uni}` : null,
        archive_path: path.slice(1),
        url: null,
        width: 1200,
        height: 800,
      });
    }
    const object = {
      id,
      type: 'Note',
      summary: null,
      inReplyTo,
      published,
      url: `https://mastodon.example/@ada/${sid}`,
      attributedTo: actor,
      to,
      cc,
      sensitive: false,
      atomUri: id,
      conversation: `tag:mastodon.example,2024:objectId=${i}:objectType=Conversation`,
      content,
      contentMap: { en: content },
      attachment,
      tag: [{ type: 'Hashtag', href: 'https://mastodon.example/tags/release', name: '#release' }],
      replies: {
        id: `${id}/replies`,
        type: 'Collection',
        first: { type: 'CollectionPage', next: `${id}/replies?page=true`, partOf: `${id}/replies`, items: [] },
      },
    };
    items.push({ id: `${id}/activity`, type: 'Create', actor, published, to, cc, object });
    if (visibility === 'direct') {
      skipped.direct_message! += 1;
      continue;
    }
    if (inReplyTo && !replyTo) {
      skipped.reply! += 1;
      continue;
    }
    const expected: ExpectedPost = {
      externalId: id,
      text,
      visibility,
      media: expectMedia,
      replyTo,
      likes: 0,
      reposts: 0,
      publishedAt: odd ?? new Date(published).toISOString(),
      ...(odd === undefined ? {} : { unreadDate: odd }),
    };
    if (visibility === 'followers') {
      nonPublicPosts.set(id, expected);
      skipped.followers_only! += 1;
    } else {
      publicPosts.set(id, expected);
      lastOwn = id;
    }
  }
  const outbox = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: 'outbox.json',
    type: 'OrderedCollection',
    totalItems: items.length,
    orderedItems: items,
  };
  const files: Generated['files'] = [
    { name: 'actor.json', data: Buffer.from(JSON.stringify({ id: actor, type: 'Person', preferredUsername: 'ada', name: 'Ada' })) },
    { name: 'outbox.json', data: Buffer.from(JSON.stringify(outbox)) },
    { name: 'likes.json', data: Buffer.from(JSON.stringify({ type: 'OrderedCollection', orderedItems: [] })) },
    ...media,
  ];
  return { files, publicPosts, nonPublicPosts, skipped };
}

export interface LinkedInOptions {
  posts: number;
  seed?: number;
}

const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** A LinkedIn export: Shares.csv with LinkedIn's per-line quoting of multi-line posts. */
export function linkedInArchive(o: LinkedInOptions): Generated {
  const base = Date.UTC(2024, 1, 1, 9, 30, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = { repost: 0, reply: 0, followers_only: 0, direct_message: 0, empty: 0, unreadable: 0 };
  const rows = ['Date,ShareLink,ShareCommentary,SharedUrl,MediaUrl,Visibility'];
  for (let i = 0; i < o.posts; i++) {
    const d = stamp(base, i);
    const date = d.toISOString().slice(0, 19).replace('T', ' ');
    const link = `https://www.linkedin.com/feed/update/urn%3Ali%3Ashare%3A${7_100_000_000_000_000_000n + BigInt(i)}`;
    const kind = i % 10;
    const uni = UNICODE_SAMPLES[i % UNICODE_SAMPLES.length]!;
    if (kind === 0) {
      rows.push([date, link, '', 'https://example.com/shared-article', '', 'MEMBER_NETWORK'].map(csvField).join(','));
      skipped.repost! += 1;
      continue;
    }
    const multi = kind !== 1;
    const lines = multi
      ? [
          kind === 7 ? `"Ship it," she said. "Now." (${i})` : `I finished the program ${i}, with "quotes" inside.`,
          '',
          `WHAT? ${uni}`,
          '• point one, with a comma',
          kind === 8 ? '"A quotation that ends the post"' : '• point two',
        ]
      : [`"One line" ${uni}, quoted as the author wrote it`];
    const text = lines.join('\n');
    // LinkedIn wraps each line of a multi-line post in quotes (doubling the quotes inside it); in
    // real exports the first line's opening and the last line's closing quote are those of the CSV
    // field, so the unquoted field reads `First."\n""\n"Middle."\n"Last`. A few posts carry the
    // every-line-wrapped shape instead.
    const perLine = lines.map((l) => `"${l.replace(/"/g, '""')}"`).join('\n');
    const commentary = !multi ? text : kind === 3 ? perLine : perLine.slice(1, -1);
    const visibility = kind === 4 ? 'CONNECTIONS' : 'MEMBER_NETWORK';
    const mediaUrl = kind === 5 ? `https://media.licdn.com/dms/image/D4E22AQ${i}/feedshare-shrink_800/0/photo.jpg` : '';
    rows.push([date, link, commentary, kind === 6 ? 'https://example.com/article' : '', mediaUrl, visibility].map(csvField).join(','));
    const expected: ExpectedPost = {
      externalId: link,
      text,
      visibility: kind === 4 ? 'connections' : 'public',
      media: mediaUrl ? [{ type: 'image', alt_text: null, archive_path: null, url: mediaUrl, width: null, height: null }] : [],
      replyTo: null,
      likes: 0,
      reposts: 0,
      publishedAt: d.toISOString().replace(/\.\d{3}Z$/, '.000Z'),
    };
    if (kind === 4) {
      nonPublicPosts.set(link, expected);
      skipped.followers_only! += 1;
    } else publicPosts.set(link, expected);
  }
  return {
    files: [
      { name: 'Shares.csv', data: Buffer.from(`\uFEFF${rows.join('\r\n')}\r\n`) },
      { name: 'Profile.csv', data: Buffer.from('First Name,Last Name\r\nAda,Lovelace\r\n') },
      { name: 'messages.csv', data: Buffer.from('CONVERSATION ID,FROM,TO,CONTENT\r\n1,Ada,Bob,a private message\r\n') },
    ],
    publicPosts,
    nonPublicPosts,
    skipped,
  };
}

const dataOf = (f: Generated['files'][number]) => (typeof f.data === 'function' ? f.data() : f.data);

/** Writes the files as a ZIP (deflated) to `file`, or returns the bytes when no file is given. */
export async function writeZip(files: Generated['files'], file?: string): Promise<Buffer | null> {
  const zip = new yazl.ZipFile();
  for (const f of files) {
    const d = dataOf(f);
    if (Buffer.isBuffer(d)) zip.addBuffer(d, f.name, { mtime: new Date(Date.UTC(2024, 0, 1)) });
    else zip.addReadStream(d, f.name, { mtime: new Date(Date.UTC(2024, 0, 1)) });
  }
  zip.end();
  if (file) {
    await pipeline(zip.outputStream, createWriteStream(file));
    return null;
  }
  const parts: Buffer[] = [];
  for await (const c of zip.outputStream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** A tar.gz of the files (as Mastodon hands out its archive). */
export async function writeTarGz(files: Generated['files']): Promise<Buffer> {
  const pack = tar.pack();
  const out = new PassThrough();
  const parts: Buffer[] = [];
  out.on('data', (c: Buffer) => parts.push(c));
  const done = pipeline(pack, createGzip(), out);
  for (const f of files) {
    const d = dataOf(f);
    const buf = Buffer.isBuffer(d)
      ? d
      : Buffer.concat(
          await (async () => {
            const b: Buffer[] = [];
            for await (const c of d) b.push(c as Buffer);
            return b;
          })(),
        );
    pack.entry({ name: f.name, size: buf.length, mtime: new Date(Date.UTC(2024, 0, 1)) }, buf);
  }
  pack.finalize();
  await done;
  return Buffer.concat(parts);
}

/** The bytes of one generated file. */
export function fileOf(g: Generated, suffix: string): Buffer {
  const f = g.files.find((x) => x.name.endsWith(suffix));
  if (!f || !Buffer.isBuffer(f.data)) throw new Error(`no file ${suffix}`);
  return f.data;
}

/**
 * X edit chains as X writes them: each version of an edited tweet is its own entry of tweets.js,
 * the first with `edit_info.initial.editTweetIds` (every version's id, its own first), the later
 * ones with `edit_info.edit.initialTweetId` (and `editControlInitial`, as real archives carry).
 * `chains` chains of three versions, a minute apart, the versions of odd chains written out of
 * order (last version first); plus an unedited tweet between each. What one post per chain must be:
 * the last version's text, the first version's date and id.
 */
export function xEditChains(chains: number): { files: Generated['files']; expected: Map<string, ExpectedPost & { firstVersionUrl: string | null }> } {
  const base = Date.UTC(2024, 8, 2, 10, 0, 0);
  const entries: unknown[] = [];
  const expected = new Map<string, ExpectedPost & { firstVersionUrl: string | null }>();
  const tweet = (id: string, text: string, at: Date, editInfo: unknown, likes: number) => ({
    tweet: {
      edit_info: editInfo,
      retweeted: false,
      source: '<a href="https://mobile.twitter.com" rel="nofollow">Twitter Web App</a>',
      entities: { hashtags: [], symbols: [], user_mentions: [], urls: [] },
      display_text_range: ['0', String(text.length)],
      favorite_count: String(likes),
      id_str: id,
      id,
      truncated: false,
      retweet_count: '0',
      created_at: xDate(at),
      favorited: false,
      full_text: escapeXHtml(text),
      lang: 'en',
    },
  });
  for (let c = 0; c < chains; c++) {
    const ids = [0, 1, 2].map((v) => String(1_800_000_000_000_000_000n + BigInt(c) * 1_000n + BigInt(v) * 7n));
    const at = ids.map((_, v) => new Date(base + c * 3_600_000 + v * 60_000));
    const uni = UNICODE_SAMPLES[c % UNICODE_SAMPLES.length]!;
    const texts = [`Draft ${c}: teh release is out`, `Draft ${c}: the release is out`, `Release ${c} is out — ${uni}`];
    const control = { editTweetIds: ids, editableUntil: new Date(at[0]!.getTime() + 3_600_000).toISOString(), editsRemaining: '3', isEditEligible: true };
    const versions = ids.map((id, v) =>
      tweet(id, texts[v]!, at[v]!, v === 0 ? { initial: control } : { edit: { initialTweetId: ids[0], editControlInitial: control } }, 10 + v),
    );
    entries.push(...(c % 2 ? [versions[2], versions[0], versions[1]] : versions));
    const plainId = String(1_800_000_000_000_000_000n + BigInt(c) * 1_000n + 500n);
    const plainAt = new Date(base + c * 3_600_000 + 30 * 60_000);
    entries.push(tweet(plainId, `Not edited ${c}`, plainAt, { initial: { editTweetIds: [plainId], editsRemaining: '5', isEditEligible: true } }, 1));
    const common = { visibility: 'public' as const, media: [], replyTo: null, reposts: 0 };
    expected.set(ids[0]!, {
      ...common,
      externalId: ids[0]!,
      text: texts[2]!,
      likes: 12,
      publishedAt: at[0]!.toISOString(),
      firstVersionUrl: `https://x.com/ada/status/${ids[0]}`,
    });
    expected.set(plainId, { ...common, externalId: plainId, text: `Not edited ${c}`, likes: 1, publishedAt: plainAt.toISOString(), firstVersionUrl: null });
  }
  const account = [{ account: { accountId: '1000001', username: 'ada', accountDisplayName: 'Ada' } }];
  return {
    files: [
      { name: 'data/tweets.js', data: Buffer.from(`window.YTD.tweets.part0 = ${JSON.stringify(entries, null, 2)}`) },
      { name: 'data/account.js', data: Buffer.from(`window.YTD.account.part0 = ${JSON.stringify(account)}`) },
    ],
    expected,
  };
}

/**
 * A Mastodon outbox (ActivityPub, as Mastodon exports it) with a post under a content warning
 * (`summary`, `sensitive`) carrying an image with alt text, a single-choice poll (`Question` with
 * `oneOf`) under a content warning, and a multiple-choice poll (`anyOf`) without one.
 */
export function mastodonWarningsAndPolls(): { files: Generated['files'] } {
  const actor = 'https://mastodon.example/users/ada';
  const note = (n: number, object: Record<string, unknown>) => ({
    id: `${actor}/statuses/11${n}/activity`,
    type: 'Create',
    actor,
    published: `2024-05-0${n}T09:00:00Z`,
    to: [AS_PUBLIC],
    cc: [`${actor}/followers`],
    object: {
      id: `${actor}/statuses/11${n}`,
      url: `https://mastodon.example/@ada/11${n}`,
      attributedTo: actor,
      published: `2024-05-0${n}T09:00:00Z`,
      to: [AS_PUBLIC],
      cc: [`${actor}/followers`],
      inReplyTo: null,
      sensitive: false,
      summary: null,
      tag: [],
      replies: { type: 'Collection', totalItems: 0 },
      ...object,
    },
  });
  const option = (name: string, votes: number) => ({ type: 'Note', name, replies: { type: 'Collection', totalItems: votes } });
  const outbox = {
    '@context': ['https://www.w3.org/ns/activitystreams', { sensitive: 'as:sensitive', votersCount: 'toot:votersCount' }],
    id: 'outbox.json',
    type: 'OrderedCollection',
    totalItems: 3,
    orderedItems: [
      note(1, {
        type: 'Note',
        summary: 'Spoilers: the finale of 「進撃の巨人」 🧵',
        sensitive: true,
        content: '<p>The last episode ends where the first one began. 𝕏 marks the spot.</p>',
        attachment: [
          {
            type: 'Document',
            mediaType: 'image/jpeg',
            url: '/media_attachments/files/110/000/001/original/finale.jpg',
            name: 'A wall at sunset, with a bird on it — مرحبا',
            width: 1600,
            height: 900,
          },
        ],
      }),
      note(2, {
        type: 'Question',
        summary: 'Politics (mild)',
        content: '<p>Which voting system should our club use?</p>',
        endTime: '2024-05-09T09:00:00Z',
        votersCount: 42,
        oneOf: [option('First past the post', 10), option('Ranked choice 🗳️', 25), option('Approval', 7)],
      }),
      note(3, {
        type: 'Question',
        content: '<p>Which days suit you?</p>',
        endTime: '2024-05-04T09:00:00Z',
        closed: '2024-05-04T09:00:00Z',
        votersCount: 5,
        anyOf: [option('Monday', 3), option('Samedi', 4)],
      }),
    ],
  };
  return {
    files: [
      { name: 'outbox.json', data: Buffer.from(JSON.stringify(outbox)) },
      { name: 'actor.json', data: Buffer.from(JSON.stringify({ id: actor, type: 'Person', preferredUsername: 'ada' })) },
      { name: 'media_attachments/files/110/000/001/original/finale.jpg', data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]) },
    ],
  };
}
