// The exports added by issue 24, built from the formats' published definitions at any size, each
// with what a correct import must produce post by post:
// - a Bluesky repository CAR (CAR v1 of DAG-CBOR; atproto's repository spec: a signed commit whose
//   `data` is a merkle search tree of `collection/rkey` keys, layered by the leading zero bits of
//   each key's SHA-256 in 2-bit steps, keys prefix-compressed within a node), written by the IPLD
//   project's own encoder, with posts, reposts, likes, follows, the profile, replies to others,
//   self-threads, images with alt (also in a quote with media), a video, link cards, and link
//   facets whose byte offsets follow multibyte text;
// - a WordPress WXR 1.2 export (RSS 2.0 with the wp:, content:, excerpt:, dc: namespaces, CDATA as
//   WordPress writes it) with drafts, pending, scheduled, private, password-protected and trashed
//   posts, pages, attachments, menu items, comments, categories and tags;
// - an Instagram export ZIP from Meta's Accounts Center, whose JSON escapes each UTF-8 byte as
//   `\u00XX`, in several scripts and astral-plane emoji.
import * as dagCbor from '@ipld/dag-cbor';
import { CarWriter } from '@ipld/car/writer';
import { CID } from 'multiformats/cid';
import { sha256 } from 'multiformats/hashes/sha2';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type ExpectedPost, type Generated, rng, UNICODE_SAMPLES } from './exports.js';

const RAW = 0x55;
export const zeroSkips = () => ({
  repost: 0,
  reply: 0,
  followers_only: 0,
  direct_message: 0,
  empty: 0,
  unreadable: 0,
  like: 0,
  draft: 0,
  private: 0,
  trashed: 0,
  not_a_post: 0,
});

// ---------------------------------------------------------------- Bluesky

interface Block {
  cid: CID;
  bytes: Uint8Array;
}

async function block(value: unknown): Promise<Block> {
  const bytes = dagCbor.encode(value);
  return { cid: CID.create(1, dagCbor.code, await sha256.digest(bytes)), bytes };
}

const B32 = '234567abcdefghijklmnopqrstuvwxyz';
/** An atproto TID: 53 bits of microseconds since the epoch and 10 of clock id, base32-sortable, 13 characters. */
export function tid(micros: number, clock = 0): string {
  let n = (BigInt(micros) << 10n) | BigInt(clock & 1023);
  let s = '';
  for (let i = 0; i < 13; i++) {
    s = B32[Number(n & 31n)]! + s;
    n >>= 5n;
  }
  return s;
}

/** The MST layer of a key: leading zero bits of its SHA-256, counted in 2-bit steps (fanout 4). */
function layerOf(key: string): number {
  const h = createHash('sha256').update(key).digest();
  let zeros = 0;
  for (const byte of h) {
    if (byte === 0) {
      zeros += 4;
      continue;
    }
    if ((byte & 0xc0) === 0) zeros += 1;
    if ((byte & 0xf0) === 0) zeros += 1;
    if ((byte & 0xfc) === 0) zeros += 1;
    break;
  }
  return zeros;
}

const common = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** Builds the tree over sorted keys; pushes its nodes to `out`; returns the root's CID (null: no key). */
async function buildMst(keys: Array<{ key: string; layer: number; cid: CID }>, layer: number, out: Block[]): Promise<CID | null> {
  if (!keys.length) return null;
  if (!keys.some((k) => k.layer === layer)) return buildMst(keys, layer - 1, out);
  const node: { l: CID | null; e: Array<{ p: number; k: Uint8Array; v: CID; t: CID | null }> } = { l: null, e: [] };
  let run: typeof keys = [];
  let prev = '';
  const attach = async () => {
    const sub = await buildMst(run, layer - 1, out);
    if (node.e.length === 0) node.l = sub;
    else node.e[node.e.length - 1]!.t = sub;
    run = [];
  };
  for (const k of keys) {
    if (k.layer < layer) {
      run.push(k);
      continue;
    }
    await attach();
    const p = common(prev, k.key);
    node.e.push({ p, k: new TextEncoder().encode(k.key.slice(p)), v: k.cid, t: null });
    prev = k.key;
  }
  await attach();
  const b = await block(node);
  out.push(b);
  return b.cid;
}

const utf8Len = (s: string) => Buffer.byteLength(s, 'utf8');

export interface BlueskyOptions {
  posts: number;
  seed?: number;
  /** Block order: as the reference PDS writes it (commit, tree, records) or records first. */
  order?: 'tree-first' | 'records-first';
  /** The `createdAt` of some records, by index, written as given (an export with odd dates). */
  dates?: Map<number, string>;
}

export interface GeneratedCar {
  did: string;
  /** The CAR's bytes, written by @ipld/car's CarWriter (`drop`: leave out the last blocks, as a cut file would). */
  write(file?: string, drop?: number): Promise<Buffer | null>;
  publicPosts: Map<string, ExpectedPost>;
  skipped: Record<string, number>;
}

/** A Bluesky repository export of `posts` records of every kind, with what the import must produce. */
export async function blueskyRepo(o: BlueskyOptions): Promise<GeneratedCar> {
  const r = rng(o.seed ?? 1);
  const did = 'did:plc:ewvi7nxzyoun6zhxrhs64oiz';
  const other = 'did:plc:z72i7hdynmk6r22z27h6tvur';
  const base = Date.UTC(2024, 9, 1, 12, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const records: Array<{ key: string; block: Block }> = [];
  const put = async (collection: string, rkey: string, value: unknown) => {
    const b = await block(value);
    records.push({ key: `${collection}/${rkey}`, block: b });
    return b.cid;
  };
  const blob = async (seed: string, mimeType: string) => {
    const bytes = Buffer.from(`blob ${seed}`);
    return { $type: 'blob', ref: CID.create(1, RAW, await sha256.digest(bytes)), mimeType, size: 48_213 + bytes.length };
  };
  await put('app.bsky.actor.profile', 'self', {
    $type: 'app.bsky.actor.profile',
    displayName: 'Ada 🧮',
    description: 'Engineer. Notes on testing & data.',
    createdAt: new Date(base - 86_400_000 * 400).toISOString(),
  });
  skipped.not_a_post += 1;
  let thread: { root: { uri: string; cid: CID }; parent: { uri: string; cid: CID } } | null = null;
  for (let i = 0; i < o.posts; i++) {
    const created = new Date(base - i * 3_600_000 - (i % 7) * 61_000);
    const odd = o.dates?.get(i);
    const createdAt = odd ?? created.toISOString();
    const rkey = tid(created.getTime() * 1000, i);
    const uni = UNICODE_SAMPLES[i % UNICODE_SAMPLES.length]!;
    const kind = i % 20;
    const subject = { uri: `at://${other}/app.bsky.feed.post/${tid((base + i) * 1000, 7)}`, cid: (await block({ n: i })).cid };
    if (kind === 0) {
      await put('app.bsky.feed.repost', rkey, { $type: 'app.bsky.feed.repost', subject, createdAt });
      skipped.repost += 1;
      continue;
    }
    if (kind === 1) {
      await put('app.bsky.feed.like', rkey, { $type: 'app.bsky.feed.like', subject, createdAt });
      skipped.like += 1;
      continue;
    }
    if (kind === 8) {
      await put('app.bsky.graph.follow', rkey, { $type: 'app.bsky.graph.follow', subject: other, createdAt });
      skipped.not_a_post += 1;
      continue;
    }
    let text = `Post ${i} about ${r.pick(['testing', 'data', 'releases', 'the roadmap'])}: ${uni}`;
    let expectedText: string;
    const record: Record<string, unknown> = { $type: 'app.bsky.feed.post', text, createdAt, langs: ['en'] };
    const media: ExpectedPost['media'] = [];
    let replyTo: string | null = null;
    if (kind === 2 || kind === 12) {
      // A reply to someone else (12: in a thread the author answered into, rooted at the other's post).
      record.reply = kind === 2 ? { root: subject, parent: subject } : { root: subject, parent: thread?.parent ?? subject };
      await put('app.bsky.feed.post', rkey, record);
      skipped.reply += 1;
      continue;
    }
    if (kind === 3 && thread) {
      record.reply = { root: thread.root, parent: thread.parent };
      replyTo = thread.parent.uri;
    }
    if (kind === 4 || kind === 5) {
      const images = [
        { image: await blob(`${i}-a`, 'image/jpeg'), alt: `A chart of week ${i}: 📈 ${uni}`, aspectRatio: { width: 2000, height: 1500 } },
        { image: await blob(`${i}-b`, 'image/png'), alt: '' },
      ];
      const imagesEmbed = { $type: 'app.bsky.embed.images', images };
      record.embed =
        kind === 4 ? imagesEmbed : { $type: 'app.bsky.embed.recordWithMedia', record: { $type: 'app.bsky.embed.record', record: subject }, media: imagesEmbed };
      for (const img of images)
        media.push({
          type: 'image',
          alt_text: img.alt || null,
          archive_path: null,
          url: `https://cdn.bsky.app/img/feed_fullsize/plain/${did}/${img.image.ref.toString()}@jpeg`,
          width: img.aspectRatio?.width ?? null,
          height: img.aspectRatio?.height ?? null,
        });
    }
    if (kind === 6 || kind === 16) {
      // Link facets after multibyte text: the shown text is shortened, the facet has the address (UTF-8 byte offsets).
      const long = `https://example.com/articles/${i}/a-very-long-path-that-gets-shortened?ref=bsky&q=caf%C3%A9`;
      const shown = `example.com/articles/${i}/a-very-lo...`;
      const prefix = `${text} — read `;
      const start = utf8Len(prefix);
      text = `${prefix}${shown} and #testing with @grace.example`;
      const tagStart = utf8Len(`${prefix}${shown} and `);
      const mentionStart = utf8Len(`${prefix}${shown} and #testing with `);
      record.text = text;
      record.facets = [
        { index: { byteStart: start, byteEnd: start + utf8Len(shown) }, features: [{ $type: 'app.bsky.richtext.facet#link', uri: long }] },
        { index: { byteStart: tagStart, byteEnd: tagStart + utf8Len('#testing') }, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'testing' }] },
        {
          index: { byteStart: mentionStart, byteEnd: mentionStart + utf8Len('@grace.example') },
          features: [{ $type: 'app.bsky.richtext.facet#mention', did: other }],
        },
      ];
      if (kind === 16) {
        // A link on words of the author's choosing: the words stay, the address follows them.
        const words = 'the release notes';
        const at = utf8Len(`${text} and `);
        text = `${text} and ${words}`;
        record.text = text;
        (record.facets as unknown[]).push({
          index: { byteStart: at, byteEnd: at + utf8Len(words) },
          features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/releases/2.3' }],
        });
        expectedText = `${prefix}${long} and #testing with @grace.example and ${words} (https://example.com/releases/2.3)`;
      } else expectedText = `${prefix}${long} and #testing with @grace.example`;
    } else expectedText = text;
    if (kind === 7) {
      const uri = `https://example.com/blog/${i}`;
      record.embed = {
        $type: 'app.bsky.embed.external',
        external: { uri, title: `Blog ${i}`, description: 'A card', thumb: await blob(`${i}-t`, 'image/jpeg') },
      };
      expectedText = `${text}\n\n${uri}`;
    }
    if (kind === 9) {
      const video = await blob(`${i}-v`, 'video/mp4');
      record.embed = { $type: 'app.bsky.embed.video', video, alt: 'A screen recording of the import', aspectRatio: { width: 1920, height: 1080 } };
      media.push({
        type: 'video',
        alt_text: 'A screen recording of the import',
        archive_path: null,
        url: `https://video.bsky.app/watch/${encodeURIComponent(did)}/${video.ref.toString()}/playlist.m3u8`,
        width: 1920,
        height: 1080,
      });
    }
    const cid = await put('app.bsky.feed.post', rkey, record);
    const uri = `at://${did}/app.bsky.feed.post/${rkey}`;
    // Threads: every tenth post starts one; kind 3 continues it.
    if (kind === 10 || !thread) thread = { root: { uri, cid }, parent: { uri, cid } };
    else if (kind === 3) thread = { root: thread.root, parent: { uri, cid } };
    publicPosts.set(uri, {
      externalId: uri,
      text: expectedText.trim(),
      visibility: 'public',
      media,
      replyTo,
      likes: 0,
      reposts: 0,
      publishedAt: createdAt,
      ...(odd === undefined ? {} : { unreadDate: odd }),
    });
  }
  // The tree, over the sorted keys.
  const keyed = records.map((x) => ({ key: x.key, layer: layerOf(x.key), cid: x.block.cid })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const nodes: Block[] = [];
  const top = Math.max(0, ...keyed.map((k) => k.layer));
  const data = await buildMst(keyed, top, nodes);
  const commit = await block({ did, version: 3, data, rev: tid(base * 1000, 1), prev: null, sig: new Uint8Array(64).fill(7) });
  const ordered =
    o.order === 'records-first' ? [...records.map((x) => x.block).reverse(), commit, ...nodes] : [commit, ...nodes.reverse(), ...records.map((x) => x.block)];
  return {
    did,
    publicPosts,
    skipped,
    async write(file, drop = 0) {
      const { writer, out } = CarWriter.create([commit.cid]);
      const parts: Uint8Array[] = [];
      const sink = file ? createWriteStream(file) : null;
      const drained = (async () => {
        for await (const c of out) {
          if (sink) {
            if (!sink.write(c)) await new Promise<void>((res) => sink.once('drain', () => res()));
          } else parts.push(c);
        }
      })();
      for (const b of ordered.slice(0, ordered.length - drop)) await writer.put(b);
      await writer.close();
      await drained;
      if (sink) {
        await new Promise<void>((res, rej) => sink.end((err?: Error | null) => (err ? rej(err) : res())));
        return null;
      }
      return Buffer.concat(parts);
    },
  };
}

// ---------------------------------------------------------------- WordPress

/** CDATA as WordPress writes it (`wxr_cdata`): a `]]>` inside is split across two sections. */
const cdata = (s: string) => `<![CDATA[${s.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
const wpDate = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface WordPressOptions {
  posts: number;
  seed?: number;
  /** Paragraphs of filler per post (real posts are a few KB). */
  paragraphs?: number;
}

export interface GeneratedWxr {
  /** The export's chunks (written one after another: the bench streams 20,000 posts to a file). */
  chunks: () => Generator<string>;
  publicPosts: Map<string, ExpectedPost>;
  skipped: Record<string, number>;
}

/** A WordPress WXR 1.2 export with posts in every state, with what the import must produce. */
export function wordpressExport(o: WordPressOptions): GeneratedWxr {
  const site = 'https://ada.example';
  const base = Date.UTC(2024, 4, 1, 9, 0, 0);
  const publicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const r = rng(o.seed ?? 1);
  const items: Array<() => string> = [];
  const filler = (n: number) =>
    Array.from(
      { length: n },
      (_, k) => `Paragraph ${k}: ${Array.from({ length: 40 }, () => r.pick(['data', 'export', 'test', 'release', 'team', 'plan'])).join(' ')}.`,
    );
  for (let i = 0; i < o.posts; i++) {
    const d = new Date(base - i * 7_200_000 - (i % 5) * 13_000);
    const id = 1000 + i;
    const kind = i % 20;
    const uni = UNICODE_SAMPLES[i % UNICODE_SAMPLES.length]!;
    const slug = `post-${i}`;
    const link = `${site}/${d.toISOString().slice(0, 4)}/${d.toISOString().slice(5, 7)}/${slug}/`;
    const guid = `${site}/?p=${id}`;
    let type = 'post';
    let status = 'publish';
    let password = '';
    let gmt = wpDate(d);
    if (kind === 1) status = 'draft';
    if (kind === 2) status = 'private';
    if (kind === 3) status = 'pending';
    if (kind === 4) status = 'trash';
    if (kind === 5) type = 'page';
    if (kind === 6) {
      type = 'attachment';
      status = 'inherit';
    }
    if (kind === 7) password = 'hunter2';
    if (kind === 8) status = 'future';
    if (kind === 9) type = 'nav_menu_item';
    if (kind === 1 || kind === 3) gmt = '0000-00-00 00:00:00';
    const title = `Post ${i} & the ${r.pick(['roadmap', 'release', 'team'])}`;
    const paras = filler(o.paragraphs ?? 0);
    const classic = kind === 11;
    const content = classic
      ? `Post ${i} in the classic editor: ${uni}\n\nA second line with <a href="https://example.com/classic/${i}">a link</a> and a ]]> inside.`
      : [
          `<!-- wp:paragraph -->\n<p>Post ${i} &amp; friends: ${esc(uni)} — read <a href="https://example.com/notes/${i}?a=1&amp;b=2">the notes</a>.</p>\n<!-- /wp:paragraph -->`,
          `<!-- wp:image {"id":${id + 5000}} -->\n<figure class="wp-block-image"><img src="${site}/wp-content/uploads/2024/05/chart-${i}.png" alt="A chart"/></figure>\n<!-- /wp:image -->`,
          `<!-- wp:list -->\n<ul><li>one <strong>bold</strong> point</li><li>see <a href="https://example.com/x/${i}">https://example.com/x/${i}</a></li></ul>\n<!-- /wp:list -->`,
          ...paras.map((p) => `<!-- wp:paragraph -->\n<p>${p}</p>\n<!-- /wp:paragraph -->`),
        ].join('\n\n');
    const body = classic
      ? `Post ${i} in the classic editor: ${uni.replace(/[ \t\u00a0]+/g, ' ').trim()}\n\nA second line with a link (https://example.com/classic/${i}) and a ]]> inside.`
      : [
          `Post ${i} & friends: ${uni.replace(/[ \t\u00a0]+/g, ' ').trim()} — read the notes (https://example.com/notes/${i}?a=1&b=2).`,
          `- one bold point\n- see https://example.com/x/${i}`,
          ...paras,
        ].join('\n\n');
    const cats = [
      { domain: 'category', nicename: 'news', name: 'News & Updates' },
      { domain: 'category', nicename: 'uncategorized', name: 'Uncategorized' },
      { domain: 'post_tag', nicename: 'open-source', name: 'open source' },
      ...(i % 3 === 0 ? [{ domain: 'post_tag', nicename: '%e6%97%a5%e6%9c%ac%e8%aa%9e', name: '日本語' }] : []),
    ];
    const tags = ['#NewsUpdates', '#OpenSource', ...(i % 3 === 0 ? ['#日本語'] : [])];
    const comments = kind === 10 ? [{ approved: '1' }, { approved: '0' }, { approved: 'spam' }, { approved: '1' }] : [];
    items.push(
      () =>
        `\t<item>
\t\t<title>${cdata(title)}</title>
\t\t<link>${link}</link>
\t\t<pubDate>${d.toUTCString().replace('GMT', '+0000')}</pubDate>
\t\t<dc:creator>${cdata('ada')}</dc:creator>
\t\t<guid isPermaLink="false">${guid}</guid>
\t\t<description></description>
\t\t<content:encoded>${cdata(content)}</content:encoded>
\t\t<excerpt:encoded>${cdata('')}</excerpt:encoded>
\t\t<wp:post_id>${id}</wp:post_id>
\t\t<wp:post_date>${cdata(wpDate(new Date(d.getTime() + 7_200_000)))}</wp:post_date>
\t\t<wp:post_date_gmt>${cdata(gmt)}</wp:post_date_gmt>
\t\t<wp:post_modified>${cdata(wpDate(d))}</wp:post_modified>
\t\t<wp:post_modified_gmt>${cdata(wpDate(d))}</wp:post_modified_gmt>
\t\t<wp:comment_status>${cdata('open')}</wp:comment_status>
\t\t<wp:ping_status>${cdata('open')}</wp:ping_status>
\t\t<wp:post_name>${cdata(slug)}</wp:post_name>
\t\t<wp:status>${cdata(status)}</wp:status>
\t\t<wp:post_parent>0</wp:post_parent>
\t\t<wp:menu_order>0</wp:menu_order>
\t\t<wp:post_type>${cdata(type)}</wp:post_type>
\t\t<wp:post_password>${cdata(password)}</wp:post_password>
\t\t<wp:is_sticky>0</wp:is_sticky>
${type === 'attachment' ? `\t\t<wp:attachment_url>${cdata(`${site}/wp-content/uploads/2024/05/chart-${i}.png`)}</wp:attachment_url>\n` : ''}${cats.map((c) => `\t\t<category domain="${c.domain}" nicename="${c.nicename}">${cdata(c.name)}</category>`).join('\n')}
\t\t<wp:postmeta>
\t\t\t<wp:meta_key>${cdata('_edit_last')}</wp:meta_key>
\t\t\t<wp:meta_value>${cdata('1')}</wp:meta_value>
\t\t</wp:postmeta>
${comments
  .map(
    (c, k) => `\t\t<wp:comment>
\t\t\t<wp:comment_id>${id * 10 + k}</wp:comment_id>
\t\t\t<wp:comment_author>${cdata('Grace')}</wp:comment_author>
\t\t\t<wp:comment_date_gmt>${cdata(wpDate(d))}</wp:comment_date_gmt>
\t\t\t<wp:comment_content>${cdata('<p>Great post, the <a href="https://spam.example">best</a>!</p>')}</wp:comment_content>
\t\t\t<wp:comment_approved>${cdata(c.approved)}</wp:comment_approved>
\t\t\t<wp:comment_type>${cdata('comment')}</wp:comment_type>
\t\t\t<wp:comment_parent>0</wp:comment_parent>
\t\t</wp:comment>`,
  )
  .join('\n')}
\t</item>
`,
    );
    if (type !== 'post') skipped.not_a_post += 1;
    else if (status === 'trash') skipped.trashed += 1;
    else if (status === 'private' || password) skipped.private += 1;
    else if (status !== 'publish') skipped.draft += 1;
    else
      publicPosts.set(guid, {
        externalId: guid,
        text: `${title}\n\n${body}\n\n${tags.join(' ')}`,
        visibility: 'public',
        media: [],
        replyTo: null,
        // The approved comments are the post's replies (checked apart: ExpectedPost has no such field).
        likes: comments.filter((c) => c.approved === '1').length,
        reposts: 0,
        publishedAt: new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString(),
      });
  }
  const head = `<?xml version="1.0" encoding="UTF-8" ?>
<!-- This is a WordPress eXtended RSS file generated by WordPress as an export of your site. -->
<!-- It contains information about your site's posts, pages, comments, categories, and other content. -->
<!-- You may use this file to transfer that content from one site to another. -->
<!-- This file is not intended to serve as a complete backup of your site. -->

<!-- To import this information into a WordPress site follow these steps: -->
<!-- 1. Log in to that site as an administrator. -->
<!-- 2. Go to Tools: Import in the WordPress admin panel. -->
<!-- 3. Install the "WordPress" importer from the list. -->
<!-- 4. Activate & Run Importer. -->
<!-- 5. Upload this file using the form provided on that page. -->
<!-- 6. You will first be asked to map the authors in this export file to users -->
<!--    on the site. For each author, you may choose to map to an -->
<!--    existing user on the site or to create a new user. -->
<!-- 7. WordPress will then import each of the posts, pages, comments, categories, etc. -->
<!--    contained in this file into your site. -->

<!-- generator="WordPress/6.5.3" created="2024-05-20 10:00" -->
<rss version="2.0"
\txmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
\txmlns:content="http://purl.org/rss/1.0/modules/content/"
\txmlns:wfw="http://wellformedweb.org/CommentAPI/"
\txmlns:dc="http://purl.org/dc/elements/1.1/"
\txmlns:wp="http://wordpress.org/export/1.2/"
>

<channel>
\t<title>Ada&#039;s notes</title>
\t<link>${site}</link>
\t<description>Notes on testing &amp; data</description>
\t<pubDate>Mon, 20 May 2024 10:00:00 +0000</pubDate>
\t<language>en-US</language>
\t<wp:wxr_version>1.2</wp:wxr_version>
\t<wp:base_site_url>${site}</wp:base_site_url>
\t<wp:base_blog_url>${site}</wp:base_blog_url>
\t<wp:author><wp:author_id>1</wp:author_id><wp:author_login>${cdata('ada')}</wp:author_login><wp:author_email>${cdata('ada@example.com')}</wp:author_email><wp:author_display_name>${cdata('Ada')}</wp:author_display_name></wp:author>
\t<wp:category><wp:term_id>1</wp:term_id><wp:category_nicename>${cdata('news')}</wp:category_nicename><wp:category_parent>${cdata('')}</wp:category_parent><wp:cat_name>${cdata('News & Updates')}</wp:cat_name></wp:category>
\t<wp:tag><wp:term_id>2</wp:term_id><wp:tag_slug>${cdata('open-source')}</wp:tag_slug><wp:tag_name>${cdata('open source')}</wp:tag_name></wp:tag>
\t<generator>https://wordpress.org/?v=6.5.3</generator>

`;
  return {
    publicPosts,
    skipped,
    *chunks() {
      yield head;
      for (const item of items) yield item();
      yield '</channel>\n</rss>\n';
    },
  };
}

/** The whole export as bytes (tests; the bench writes the chunks to a file). */
export const wxrBytes = (g: GeneratedWxr) => Buffer.from([...g.chunks()].join(''), 'utf8');

// ---------------------------------------------------------------- Instagram

/** JSON as Meta writes it: every non-ASCII character as its UTF-8 bytes, each escaped `\u00XX`. */
export function metaJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u0080-\u{10ffff}]+/gu, (s) =>
    [...Buffer.from(s, 'utf8')].map((b) => `\\u00${b.toString(16).padStart(2, '0')}`).join(''),
  );
}

export const META_SCRIPTS = [
  'Café crème à Montréal, déjà-vu — «naïve» façade',
  'Привет из Москвы! Съешь же ещё этих мягких булок',
  '東京の夜景と中文字符，还有한국어 텍스트',
  'Emoji of the astral planes: 😍🔥👩🏽‍💻🇧🇷 and 𝕏 𝟙𝟚𝟛 𓀀',
  'العربية والعبرية: مرحبا — שלום',
  'Ελληνικά και Türkçe: ğüşıöç',
];

export interface InstagramOptions {
  posts: number;
  /** The account was private (personal_information.json says so). */
  privateAccount?: boolean;
  /** The older layout, `content/posts_1.json` at the top. */
  older?: boolean;
}

/** An Instagram export ZIP's files, with what the import must produce. */
export function instagramExport(o: InstagramOptions): Generated {
  const base = Math.floor(Date.UTC(2024, 2, 1, 18, 0, 0) / 1000);
  const posts: unknown[] = [];
  const publicPosts = new Map<string, ExpectedPost>();
  const nonPublicPosts = new Map<string, ExpectedPost>();
  const skipped: Record<string, number> = zeroSkips();
  const files: Generated['files'] = [];
  for (let i = 0; i < o.posts; i++) {
    const at = base - i * 86_400 - (i % 3) * 600;
    const caption = `${META_SCRIPTS[i % META_SCRIPTS.length]} #${i}\nSecond line ✨`;
    const month = new Date(at * 1000).toISOString().slice(0, 7).replace('-', '');
    const carousel = i % 4 === 1;
    const n = carousel ? 3 : 1;
    const media = Array.from({ length: n }, (_, k) => ({
      uri: `media/posts/${month}/179${String(i * 10 + k).padStart(14, '0')}.${k === 2 ? 'mp4' : 'jpg'}`,
      creation_timestamp: at,
      media_metadata: { photo_metadata: { exif_data: [{ latitude: 48.85, longitude: 2.35 }] } },
      ...(carousel ? { title: '' } : { title: caption }),
      cross_post_source: { source_app: 'FB' },
    }));
    for (const m of media) files.push({ name: m.uri, data: Buffer.from([0xff, 0xd8, 0xff, 0xe0, i & 0xff]) });
    posts.push(carousel ? { media, title: caption, creation_timestamp: at } : { media });
    const expected: ExpectedPost = {
      externalId: '',
      text: caption,
      visibility: o.privateAccount ? 'followers' : 'public',
      media: media.map((m) => ({
        type: m.uri.endsWith('.mp4') ? 'video' : 'image',
        alt_text: null,
        archive_path: m.uri,
        url: null,
        width: null,
        height: null,
      })),
      replyTo: null,
      likes: 0,
      reposts: 0,
      publishedAt: new Date(at * 1000).toISOString(),
    };
    (o.privateAccount ? nonPublicPosts : publicPosts).set(caption, expected);
    if (o.privateAccount) skipped.followers_only += 1;
  }
  const dir = o.older ? 'content' : 'your_instagram_activity/content';
  files.unshift({ name: `${dir}/posts_1.json`, data: Buffer.from(metaJson(posts)) });
  files.push({
    name: 'personal_information/personal_information/personal_information.json',
    data: Buffer.from(
      metaJson({
        profile_user: [
          {
            title: '',
            media_map_data: {},
            string_map_data: {
              Email: { href: '', value: 'ada@example.com', timestamp: 0 },
              Name: { href: '', value: 'Ada Lovelace · Ада', timestamp: 0 },
              Username: { href: '', value: 'ada.codes', timestamp: 0 },
              'Private Account': { href: '', value: o.privateAccount ? 'True' : 'False', timestamp: 0 },
            },
          },
        ],
      }),
    ),
  });
  files.push({
    name: 'your_instagram_activity/messages/inbox/grace_123/message_1.json',
    data: Buffer.from(metaJson({ participants: [{ name: 'Grace' }], messages: [{ sender_name: 'Grace', content: 'a private message — приватно' }] })),
  });
  files.push({ name: 'your_instagram_activity/likes/liked_posts.json', data: Buffer.from(metaJson({ likes_media_likes: [] })) });
  return { files, publicPosts, nonPublicPosts, skipped };
}
